/**
 * Mastra in "Cost of oversight, per adapter": the refund tool with Mastra's own tool-call approval
 * (`requireApproval` over $500: `generate` ends `suspended`, `approveToolCallGenerate` resumes the run),
 * against `createMastraAgent` on Interlock's store. Both use Mastra's own offline model
 * (`MastraLanguageModelV2Mock`, test/support/mastra-model.ts).
 *
 * The framework side's persistence. Mastra's database stores (`@mastra/libsql`, `@mastra/pg`) are
 * separate packages this repository does not install, so Mastra's storage is implemented here over the
 * application's table (bench/lib/app-store.ts) in the same database: a `MastraCompositeStore` whose
 * `workflows` domain — the only one an agent's runs touch without `@mastra/memory` — reads and writes
 * each run snapshot as one row, one transaction per write, as Mastra's own adapters do. Mastra then
 * persists exactly what it persists with those stores: a `pending` snapshot of its agentic loop and of
 * the loop's execution workflow when a run starts, `suspended` ones when a tool call waits for approval
 * (each written twice by Mastra), and a delete of both when the run ends. A thread's messages are
 * Mastra's `Memory`'s job, also a separate package (`@mastra/memory`): the application keeps them in
 * the same table, as the AI SDK pair does, with the suspended run's id and call in the same transaction.
 */
import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import {
  InMemoryStore,
  MastraCompositeStore,
  WorkflowsStorage,
  type StorageListWorkflowRunsInput,
  type WorkflowRun,
  type WorkflowRuns,
} from '@mastra/core/storage';
import { createTool } from '@mastra/core/tools';
import type { WorkflowRunState } from '@mastra/core/workflows';
import { createMastraAgent } from '../../src/mastra.ts';
import { mastraModel } from '../../test/support/mastra-model.ts';
import { plan, supportTools, type MastraRefundLog } from '../../test/support/mastra-support.ts';
import { postgresAppStore, sqliteAppStore, type AppStore } from '../lib/app-store.ts';
import type { Scratch } from '../lib/backends.ts';
import {
  expect,
  interlockSide,
  type OversightAgent,
  type OversightBackend,
  oversightInterlock,
  pairOf,
  perTurnIds,
} from '../lib/oversight-agent.ts';
import { z } from '../lib/root-packages.ts';

/** test/support's plan with a call id of its own per turn. */
const uniquePlan = perTurnIds(plan);

/** Mastra's offline model on the unique plan; it keeps every prompt, so each side empties that after a turn. */
function model() {
  const m = mastraModel(uniquePlan);
  return Object.assign(m, {
    forget: () => {
      m.seen.length = 0;
      m.doGenerateCalls.length = 0;
      m.doStreamCalls.length = 0;
    },
  });
}

/** The options both sides run Mastra with (the adapter's tests use the same). */
const OPTIONS = { maxSteps: 5 };

/** The workflows an agent run snapshots: what `getWorkflowRunById` without a name looks through. */
const AGENT_WORKFLOWS = ['agentic-loop', 'executionWorkflow'];

/** A row of the app's table, keyed by workflow and run: Mastra's `workflows` domain needs no more. */
interface SnapshotRow {
  snapshot: WorkflowRunState;
  resourceId?: string;
  at: number;
}

/**
 * Mastra's `workflows` storage domain over the application's table: the part of Mastra's storage an
 * agent run uses (read, upsert and delete one run's snapshot), a row of `app_paused` keyed
 * `mastra:<workflow>:<runId>`, each write one transaction of `app.save`. What agent runs never call
 * (step-level updates, listings) throws: a call would mean Mastra took a path this store does not
 * implement, and the benchmark stops rather than measure a storage that only seems to work.
 */
class AppWorkflows extends WorkflowsStorage {
  private readonly app: AppStore;
  constructor(app: AppStore) {
    super();
    this.app = app;
  }
  private key = (workflowName: string, runId: string) => `mastra:${workflowName}:${runId}`;
  private async row(workflowName: string, runId: string): Promise<SnapshotRow | undefined> {
    const s = await this.app.paused(this.key(workflowName, runId));
    return s === undefined ? undefined : (JSON.parse(s) as SnapshotRow);
  }
  // false: Mastra then never asks for the step-level updates below.
  supportsConcurrentUpdates(): boolean {
    return false;
  }
  async dangerouslyClearAll(): Promise<void> {
    throw new Error('oversight bench: the app table is not cleared through Mastra');
  }
  updateWorkflowResults(): Promise<never> {
    throw new Error('oversight bench: updateWorkflowResults is not used by agent runs');
  }
  updateWorkflowState(): Promise<never> {
    throw new Error('oversight bench: updateWorkflowState is not used by agent runs');
  }
  listWorkflowRuns(_?: StorageListWorkflowRunsInput): Promise<WorkflowRuns> {
    throw new Error('oversight bench: listWorkflowRuns is not used by agent runs');
  }
  async persistWorkflowSnapshot(o: {
    workflowName: string;
    runId: string;
    resourceId?: string;
    snapshot: WorkflowRunState;
  }) {
    const row: SnapshotRow = {
      snapshot: o.snapshot,
      at: Date.now(),
      ...(o.resourceId ? { resourceId: o.resourceId } : {}),
    };
    await this.app.save(this.key(o.workflowName, o.runId), 0, [], JSON.stringify(row));
  }
  async loadWorkflowSnapshot(o: { workflowName: string; runId: string }): Promise<WorkflowRunState | null> {
    return (await this.row(o.workflowName, o.runId))?.snapshot ?? null;
  }
  async getWorkflowRunById(o: { runId: string; workflowName?: string }): Promise<WorkflowRun | null> {
    for (const workflowName of o.workflowName ? [o.workflowName] : AGENT_WORKFLOWS) {
      const r = await this.row(workflowName, o.runId);
      if (r) {
        const at = new Date(r.at);
        return {
          workflowName,
          runId: o.runId,
          snapshot: r.snapshot,
          createdAt: at,
          updatedAt: at,
          resourceId: r.resourceId,
        };
      }
    }
    return null;
  }
  async deleteWorkflowRunById(o: { runId: string; workflowName: string }): Promise<void> {
    await this.app.save(this.key(o.workflowName, o.runId), 0, [], null);
  }
}

/** The order-support tools of test/support with Mastra's own approval on refunds over $500 (no Interlock key to log). */
function approvingTools(log: MastraRefundLog) {
  return {
    issue_refund: createTool({
      id: 'issue_refund',
      description: 'Refund an order',
      inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
      requireApproval: ({ amount }: { amount: number }) => amount > 500,
      execute: async (args) => {
        log.runs.push({ args, key: '' });
        return { refunded: args.amount };
      },
    }),
    lookup_order: createTool({
      id: 'lookup_order',
      description: 'Look up an order',
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => ({ orderId, total: 900 }),
    }),
  };
}

/** A Mastra agent named `support` on `tools`, registered on a Mastra with `storage`. */
function supportAgent(
  tools: ReturnType<typeof supportTools> | ReturnType<typeof approvingTools>,
  storage: MastraCompositeStore,
) {
  const m = model();
  const agent = new Agent({ id: 'support', name: 'Support', instructions: 'You help customers.', model: m, tools });
  new Mastra({ agents: { support: agent }, storage, logger: false });
  return { agent, model: m };
}

/** What the app keeps of a suspended run: enough for the reviewer's approve handler to resume it anywhere. */
interface Suspended {
  runId: string;
  toolCallId: string;
}

async function own(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const app =
    backend === 'sqlite' ? sqliteAppStore(scratch, 'mastra-own') : await postgresAppStore(scratch, 'mastra_own');
  const log: MastraRefundLog = { runs: [] };
  const storage = new MastraCompositeStore({ id: 'app', domains: { workflows: new AppWorkflows(app) } });
  const { agent, model: m } = supportAgent(approvingTools(log), storage);
  /** A user message: load the thread, generate, store the user's message and Mastra's (or the suspended run). */
  async function turn(threadId: string, input: string) {
    const history = await app.load(threadId);
    const user = { role: 'user', content: input };
    const r = await agent.generate([...history, user] as never, OPTIONS);
    m.forget();
    if (r.finishReason === 'suspended') {
      const p = r.suspendPayload as { toolCallId?: string } | undefined;
      const held: Suspended = { runId: r.runId!, toolCallId: p?.toolCallId ?? '' };
      await app.save(threadId, history.length, [user], JSON.stringify(held));
    } else await app.save(threadId, history.length, [user, ...(r.response?.messages ?? [])]);
    return r;
  }
  return {
    label: "Mastra · requireApproval + Mastra's storage on the app's table",
    async auto(threadId, input) {
      const r = await turn(threadId, input);
      expect(r.finishReason === 'stop', `Mastra auto turn on ${threadId} ended ${r.finishReason}`);
    },
    async cycle(threadId, input) {
      const paused = await turn(threadId, input);
      expect(paused.finishReason === 'suspended', `Mastra gated turn on ${threadId} ended ${paused.finishReason}`);
      // The reviewer approves: the app's handler finds the suspended run, and Mastra's approveToolCall is
      // the decision (Mastra records none of its own): it loads the snapshot, runs the call, finishes.
      const held = (await app.load(threadId)).length;
      const saved = await app.paused(threadId);
      expect(saved !== undefined, `Mastra suspended run of ${threadId} was not stored`);
      const s = JSON.parse(saved!) as Suspended;
      const done = await agent.approveToolCallGenerate({ ...OPTIONS, runId: s.runId, toolCallId: s.toolCallId });
      m.forget();
      expect(done.finishReason === 'stop', `Mastra resume on ${threadId} ended ${done.finishReason}`);
      await app.save(threadId, held, done.response?.messages ?? [], null);
    },
    runs: () => log.runs.length,
    commits: () => app.commits(),
    close: () => app.close(),
  };
}

async function withInterlock(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const { il, store } = await oversightInterlock(scratch, backend, 'mastra-interlock');
  const log: MastraRefundLog = { runs: [] };
  // Mastra's storage is scratch for the adapter (it keeps the run's snapshots in Interlock's checkpoint):
  // the in-memory store its documentation registers.
  const { agent: support, model: m } = supportAgent(supportTools(log), new InMemoryStore());
  const agent = createMastraAgent({ interlock: il, agent: support, options: OPTIONS });
  return interlockSide({
    label: 'Mastra · createMastraAgent',
    framework: 'Mastra',
    il,
    store,
    agent,
    runs: () => log.runs.length,
    afterRun: () => m.forget(),
  });
}

/** The Mastra pair on `backend`. */
export const mastraPair = pairOf('Mastra', own, withInterlock);
