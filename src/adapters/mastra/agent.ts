import { ConfigError, InterlockUsageError, newId } from '../../core/index.ts';
import {
  NotWiredError,
  busyResult,
  createCallGate,
  runTurn,
  schemasOf,
  leasedRuns,
  type CallGate,
  type ThreadRun,
} from '../core/index.ts';
import { drive, withHooks, type Drive, type MastraFramework } from './drive.ts';
import type { MastraOutput } from './output.ts';
import { STORAGE_HOW } from './snapshot.ts';
import { HOW, gateTools, ungatedTools } from './tools.ts';
import { OWNED_OPTIONS, type MastraAgent, type MastraAgentOptions, type MastraRunResult } from './types.ts';

export { interlockRun, type InterlockExecution } from '../core/index.ts';
export type {
  AnyMastraAgent,
  MastraAgent,
  MastraAgentOptions,
  MastraGenerateOptions,
  MastraInput,
  MastraRunResult,
} from './types.ts';

/**
 * Put Interlock in front of a Mastra agent's tools. Every call is gated by the policy: `auto`/`notify`
 * run under the execute-once ledger, `block` is refused with the rule's reason, `approve`/`escalate`
 * suspend the Mastra run through its own tool-call approval and open a durable request (checkpoint —
 * with Mastra's run snapshot in it —, request, audit and notification in one transaction). Decisions
 * are made in Interlock (UI, API, CLI, Slack); `resume` — or the Interlock worker, when the agent is
 * registered in `interlock.config.ts` — writes the snapshot back into Mastra's storage and answers the
 * run with `approveToolCallGenerate` / `declineToolCallGenerate`, in any process.
 *
 * @example
 * const support = new Agent({ id: 'support', name: 'Support', instructions, model, tools: { lookupOrder, issueRefund } });
 * new Mastra({ agents: { support }, storage: new InMemoryStore() });
 * const gated = createMastraAgent({ interlock, agent: support });
 * const r = await gated.invoke('Refund order A-1001 ($850)');
 * // r.stopReason === 'interrupt' → a reviewer decides → await gated.resume(r.threadId)
 */
export function createMastraAgent(o: MastraAgentOptions): MastraAgent {
  checkOptions(o);
  const il = o.interlock;
  const agent = o.agent;
  const name = o.name ?? agent.id;
  const version = o.version ?? '1';
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  // The agent's tools are gated in place once; each run checks that the tools Mastra will use are those.
  const ready = prepare(o, il);
  ready.catch(() => undefined);
  const held = leasedRuns<MastraRunResult>(il, { agent: name, version, integration: 'mastra' }, (threadId) => ({
    ...busyResult(threadId),
    messages: [],
  }));
  const base = { agent, name, gate, options: o.options ?? {} };
  return {
    name,
    version,
    agent,
    async invoke(input, opts = {}) {
      await ready;
      await checkTools(o);
      const threadId = opts.threadId ?? newId<string>('thr');
      const added = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
      if (added.length === 0) throw new ConfigError('invoke needs a user message: a non-empty string or messages.');
      return held(threadId, true, async (run) => {
        const turn = runTurn(run.messages.length, added);
        const d: Drive = { ...base, run, threadId, turn, added, waiting: [], calls: gate.forRun(threadId, [], turn) };
        const messages = [...run.messages, ...added];
        return drive(
          d,
          (tr) => agent.generate(messages as never, withHooks(d, tr, { ...d.options })) as Promise<MastraOutput>,
        );
      });
    },
    async resume(threadId) {
      await ready;
      await checkTools(o);
      return held(threadId, false, (run) => resumeRun(base, gate, run, threadId));
    },
    async abort(threadId, by = `agent:${name}`) {
      return il.threads.abort(threadId, by);
    },
  };
}

/** Continue a saved run from the call it waits on (nothing to do when it waits on none). */
async function resumeRun(
  base: Pick<Drive, 'agent' | 'name' | 'gate' | 'options'>,
  gate: CallGate,
  run: ThreadRun,
  threadId: string,
): Promise<MastraRunResult> {
  const waiting = run.state?.waiting ?? [];
  const fw = run.state?.framework as MastraFramework | undefined;
  if (waiting.length === 0 || !fw) {
    await run.release();
    return { threadId, stopReason: 'end_turn', text: '', interrupts: [], messages: [] };
  }
  // A retry of this resume (a crash before it saved) keys its automatic calls alike.
  const turn = runTurn(run.messages.length, { resumeOf: fw.runId, at: fw.suspended.toolCallId, turn: fw.turn });
  const d: Drive = { ...base, run, threadId, turn, added: [], waiting, calls: gate.forRun(threadId, waiting, turn) };
  return drive(d, fw);
}

/** Gate the agent's tools and register their schemas for reviewers' edits; refuse what the adapter cannot gate. */
async function prepare(o: MastraAgentOptions, il: MastraAgentOptions['interlock']): Promise<void> {
  const agents = Object.keys((await o.agent.listAgents()) ?? {});
  if (agents.length > 0)
    throw new InterlockUsageError(
      'not_wired',
      `Mastra agent "${o.agent.id}" has sub-agents (${agents.join(', ')}): their tools would run inside a tool call of this agent, where Interlock cannot pause them. Give each agent its own createMastraAgent and call it from your code, or give this agent the sub-agent's tools (see docs/adapters/mastra.md).`,
      { details: { integration: 'Mastra adapter', reason: 'mastra_subagents', agent: o.agent.id, subAgents: agents } },
    );
  const workflows = Object.keys((await o.agent.listWorkflows()) ?? {});
  if (workflows.length > 0)
    throw new InterlockUsageError(
      'not_wired',
      `Mastra agent "${o.agent.id}" has workflows as tools (${workflows.join(', ')}): their steps run and suspend outside Interlock's gate. Give the agent tools, and gate each action with a policy rule (see docs/adapters/mastra.md).`,
      { details: { integration: 'Mastra adapter', reason: 'mastra_workflows', agent: o.agent.id, workflows } },
    );
  const tools = (await o.agent.listTools()) as Record<string, { inputSchema?: unknown; description?: string }>;
  // Reviewers' edits are validated against the tools' own zod schemas.
  il.registerTools(schemasOf(tools));
  await gateTools(o.agent);
}

/** The tools Mastra will run are the gated ones: tools built per run (a `tools` function) are refused before anything runs. */
async function checkTools(o: MastraAgentOptions): Promise<void> {
  const fresh = await ungatedTools(o.agent);
  if (fresh.length > 0)
    throw new NotWiredError('Mastra adapter', `tools ${fresh.map((t) => `"${t}"`).join(', ')}`, HOW);
}

/** Refuse options the adapter cannot run with, when it is built. */
function checkOptions(o: MastraAgentOptions): void {
  if (!o || typeof o !== 'object') throw new ConfigError('createMastraAgent needs options: { interlock, agent }.');
  if (!o.interlock)
    throw new ConfigError('createMastraAgent: "interlock" is required (createInterlock({ store, policy })).');
  if (!o.agent || typeof o.agent.generate !== 'function' || typeof o.agent.approveToolCallGenerate !== 'function')
    throw new ConfigError('createMastraAgent: "agent" must be a Mastra Agent (@mastra/core 1.x, new Agent({ … })).');
  if (o.name !== undefined && (typeof o.name !== 'string' || !o.name))
    throw new ConfigError('createMastraAgent: "name" must be a non-empty string when given.');
  if (!o.agent.getMastraInstance()?.getStorage())
    throw new ConfigError(`createMastraAgent: Mastra agent "${o.agent.id}" has no storage. ${STORAGE_HOW}`, {
      agent: o.agent.id,
    });
  for (const [key, how] of Object.entries(OWNED_OPTIONS))
    if (o.options && key in o.options)
      throw new ConfigError(`createMastraAgent: options.${key} is Interlock's: ${how}`);
}
