/**
 * Strands Agents (TypeScript) in "Cost of oversight, per adapter": the framework alone approves with
 * its own interrupt — a hook on `BeforeToolCallEvent` raises it for refunds over $500, and the run is
 * resumed by invoking the agent with an `interruptResponse` — and persists with its own
 * `SessionManager`, whose snapshot storage (`SnapshotStorage`, below) is the application's table in the
 * same database (bench/lib/app-store.ts): the snapshot's messages are appended to the thread's rows,
 * and while the run is interrupted the rest of the snapshot (the interrupt state with the pending tool
 * use, agent state, system prompt) is the thread's paused row. Against `createStrandsAgent` on
 * Interlock's store. Both sides build a new agent per run over the same offline model
 * (`FakeStrandsModel`, test/support/strands-model.ts) and the same refund tool logic.
 */
import {
  Agent,
  BeforeToolCallEvent,
  SessionManager,
  tool,
  type JSONValue,
  type Message,
  type Snapshot,
  type SnapshotLocation,
  type SnapshotManifest,
  type SnapshotStorage,
} from '@strands-agents/sdk';
import { createStrandsAgent } from '../../src/strands.ts';
import { FakeStrandsModel, userTurn } from '../../test/support/strands-model.ts';
import {
  refundSchema,
  refundTool,
  supportAgent,
  toolResults,
  type RefundLog,
} from '../../test/support/strands-support.ts';
import { postgresAppStore, sqliteAppStore, type AppStore } from '../lib/app-store.ts';
import type { Scratch } from '../lib/backends.ts';
import {
  expect,
  interlockSide,
  type OversightAgent,
  type OversightBackend,
  oversightInterlock,
  pairOf,
} from '../lib/oversight-agent.ts';

/**
 * test/support's support model (`refund <order> <amount>` proposes the refund; after the tool result
 * it answers with what it said), with a call id of its own per turn (the order in the text is unique):
 * a thread runs several turns, and test/support's `call_1` would repeat in one history.
 */
function uniqueModel(): FakeStrandsModel {
  const model: FakeStrandsModel = new FakeStrandsModel((messages: Message[]) => {
    // The fake model keeps every conversation it saw, for tests' asserts: a bench run would hold them all.
    model.seen.length = 0;
    const text = userTurn(messages);
    if (text?.startsWith('refund')) {
      const [, orderId = 'A-1', amount = '0'] = text.trim().split(/\s+/);
      return [{ id: `call_1_${orderId}`, name: 'issue_refund', input: { orderId, amount: Number(amount) } }];
    }
    const results = Object.entries(toolResults(messages)).map(([id, r]) => `${id}: ${r.status} ${r.text}`);
    return results.length ? `Results. ${results.join(' | ')}` : 'Hello.';
  });
  return model;
}

/** test/support's refund tool without Interlock (which hands it the idempotency key): the same logic. */
function plainRefund(log: RefundLog) {
  return tool({
    name: 'issue_refund',
    description: 'Refund an order',
    inputSchema: refundSchema,
    callback: (args) => {
      log.runs.push({ args, key: '' });
      return `refunded ${args.amount} on ${args.orderId}`;
    },
  });
}

/** The reviewer's answer to the interrupt, as the application's approve handler sends it. */
interface Answer {
  approved: boolean;
  by: string;
}

/** The SDK's own approval: a hook that interrupts refunds over $500 until a reviewer answers. */
function approvalHook(e: BeforeToolCallEvent): void {
  const args = e.toolUse.input as { orderId?: string; amount?: number };
  if (e.toolUse.name !== 'issue_refund' || Number(args.amount) <= 500) return;
  // Throws the SDK's InterruptError on the first run; on the resume, returns the reviewer's response.
  const answer = e.interrupt<Answer>({
    name: 'refund_approval',
    reason: { orderId: args.orderId ?? null, amount: Number(args.amount) },
  });
  if (!answer.approved) e.cancel = `The reviewer ${answer.by} rejected the refund.`;
}

/** What a storage read of a session: how many messages the table holds, the last one's id, a paused row. */
interface Held {
  count: number;
  last?: string | undefined;
  paused: boolean;
}

/** The id the SDK gives each message (`trackingId`), to see that the stored ones are still the snapshot's first. */
const trackingOf = (m: unknown) => (m as { trackingId?: string } | undefined)?.trackingId;

/** The snapshot schema this storage writes back (the SDK refuses any other on load). */
const SCHEMA = '1.0';

/**
 * The SDK's `SnapshotStorage` over the application's table, for one run of one thread (the session
 * manager of a new agent): `loadSnapshot` reads the thread's messages and paused row, `saveSnapshot`
 * appends the messages added since and sets or clears the paused row, in one transaction. The session
 * manager saves once per invocation (`saveLatestOn: 'invocation'`, its default) and only `latest` (no
 * `snapshotTrigger`), so each operation commits one transaction per invocation.
 *
 * A finished thread's snapshot is its messages: this agent keeps no app or model state and its system
 * prompt is the constructor's, so the other fields are left as the agent was built. Messages are only
 * appended, which holds while the conversation manager's window (40 messages) is not exceeded; a
 * snapshot whose stored part changed (trimmed) is refused rather than stored wrong.
 */
class AppSnapshots implements SnapshotStorage {
  /** Per session as read on restore: messages in the table, the last one's tracking id, a paused row. */
  private readonly held = new Map<string, Held>();

  private readonly app: AppStore;

  constructor(app: AppStore) {
    this.app = app;
  }

  async loadSnapshot(p: { location: SnapshotLocation; snapshotId?: string }): Promise<Snapshot | null> {
    if (p.snapshotId !== undefined && p.snapshotId !== 'latest') return null;
    const id = p.location.sessionId;
    const [messages, paused] = await Promise.all([this.app.load(id), this.app.paused(id)]);
    this.held.set(id, { count: messages.length, last: trackingOf(messages.at(-1)), paused: paused !== undefined });
    if (!messages.length && paused === undefined) return null;
    const rest: Snapshot = paused
      ? (JSON.parse(paused) as Snapshot)
      : { scope: 'agent', schemaVersion: SCHEMA, createdAt: new Date().toISOString(), data: {}, appData: {} };
    return { ...rest, data: { ...rest.data, messages: messages as JSONValue[] } };
  }

  async saveSnapshot(p: { location: SnapshotLocation; snapshotId: string; isLatest: boolean; snapshot: Snapshot }) {
    expect(p.isLatest, `Strands session manager wrote an immutable snapshot (${p.snapshotId}) the app does not keep`);
    const id = p.location.sessionId;
    const { messages, ...data } = p.snapshot.data as { messages: JSONValue[] } & Record<string, JSONValue>;
    const held = this.held.get(id) ?? { count: 0, paused: false };
    expect(
      held.count === 0 || trackingOf(messages[held.count - 1]) === held.last,
      `Strands session ${id} changed messages the app's table only appends`,
    );
    const interrupted = (data.interrupts as { activated?: boolean } | null)?.activated === true;
    // The paused row is written while interrupted, deleted once resumed, and not touched otherwise.
    const paused = interrupted ? JSON.stringify({ ...p.snapshot, data }) : held.paused ? null : undefined;
    await this.app.save(id, held.count, messages.slice(held.count), paused);
    this.held.set(id, { count: messages.length, last: trackingOf(messages.at(-1)), paused: interrupted });
  }

  listSnapshotIds(): Promise<string[]> {
    return Promise.resolve([]); // no immutable snapshots: the table keeps the latest only
  }

  deleteSession(): Promise<void> {
    return Promise.reject(new Error("oversight bench: the app's table does not delete threads"));
  }

  loadManifest(): Promise<SnapshotManifest> {
    return Promise.resolve({ schemaVersion: SCHEMA, updatedAt: new Date(0).toISOString() });
  }

  saveManifest(): Promise<void> {
    return Promise.resolve();
  }
}

/** The SDK's session ids allow `[a-z0-9_-]` only; the bench's thread ids are otherwise that and unique lowercased. */
const sessionOf = (threadId: string) => threadId.toLowerCase().replace(/[^a-z0-9_-]/g, '_');

async function own(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const app = backend === 'sqlite' ? sqliteAppStore(scratch, 'st-own') : await postgresAppStore(scratch, 'st_own');
  const log: RefundLog = { runs: [] };
  const model = uniqueModel();
  const refund = plainRefund(log);
  /** The thread's agent as each request builds it: its session manager restores the thread on the first invoke. */
  function build(threadId: string): Agent {
    const sessionManager = new SessionManager({
      sessionId: sessionOf(threadId),
      storage: { snapshot: new AppSnapshots(app) },
    });
    const agent = new Agent({ model, tools: [refund], printer: false, sessionManager });
    agent.addHook(BeforeToolCallEvent, approvalHook);
    return agent;
  }
  return {
    label: "Strands · interrupt hook + SessionManager on the app's table",
    async auto(threadId, input) {
      const r = await build(threadId).invoke(input);
      expect(r.stopReason === 'endTurn', `Strands auto turn on ${threadId} ended ${r.stopReason}`);
    },
    async cycle(threadId, input) {
      const paused = await build(threadId).invoke(input);
      expect(
        paused.stopReason === 'interrupt' && paused.interrupts?.length === 1,
        `Strands gated turn on ${threadId} did not interrupt`,
      );
      // The reviewer approves: the app's approve handler builds the thread's agent (the session manager
      // restores the interrupted snapshot) and answers the interrupt by id; the run goes on from the
      // pending tool use, and the session manager stores the outcome when the invocation ends.
      const answer: Answer = { approved: true, by: 'sam' };
      const done = await build(threadId).invoke([
        { interruptResponse: { interruptId: paused.interrupts![0]!.id, response: { ...answer } } },
      ]);
      expect(done.stopReason === 'endTurn', `Strands resume on ${threadId} ended ${done.stopReason}`);
    },
    runs: () => log.runs.length,
    commits: () => app.commits(),
    close: () => app.close(),
  };
}

async function withInterlock(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const { il, store } = await oversightInterlock(scratch, backend, 'st-interlock');
  const log: RefundLog = { runs: [] };
  const model = uniqueModel();
  const refund = refundTool(log);
  const agent = createStrandsAgent({
    name: 'support',
    interlock: il,
    agent: () => supportAgent(model, [refund]),
    schemas: { issue_refund: refundSchema },
  });
  return interlockSide({
    label: 'Strands · createStrandsAgent',
    framework: 'Strands',
    il,
    store,
    agent,
    runs: () => log.runs.length,
  });
}

/** The Strands Agents pair on `backend`. */
export const strandsPair = pairOf('Strands', own, withInterlock);
