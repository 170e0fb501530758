import { randomBytes } from 'node:crypto';
import { SessionManager, type InterruptResponseContentData } from '@strands-agents/sdk';
import { BeforeNodeCallEvent, type Graph, type MultiAgentResult } from '@strands-agents/sdk/multiagent';
import { ConfigError } from '../../core/index.ts';
import {
  createCallGate,
  runTurn,
  settleRun,
  leasedRuns,
  turnThread,
  type AdapterCall,
  type AdapterState,
  type CallGate,
  type RunCalls,
  type ThreadRun,
} from '../core/index.ts';
import { raise } from './hooks.ts';
import { decidedAnswers } from './runs.ts';
import { CheckpointSnapshots, type SavedSnapshots } from './snapshots.ts';
import type { StrandsGraph, StrandsGraphOptions, StrandsGraphResult } from './graph-types.ts';
export type { StrandsGraph, StrandsGraphOptions, StrandsGraphResult } from './graph-types.ts';

/** A question the run stopped on: the node's call, its interrupt, and the node. */
type Stopped = { call: AdapterCall; extra: { interruptId: string; node: string } };
type Waiting = AdapterState['waiting'][number] & { interruptId?: string; node?: string };
type Ctx = { o: StrandsGraphOptions; gate: CallGate };

const INTEGRATION = 'Strands graph adapter';

/**
 * Put Interlock before the nodes of a Strands `Graph` or `Swarm`: on `BeforeNodeCallEvent`, a node
 * listed in `ask` is a call to Interlock's policy — it runs (auto), is cancelled with the rule's
 * reason (block) or the reviewer's message (reject, respond, expiry), or raises the SDK's multi-agent
 * interrupt backed by a durable request. The orchestrator's state goes into Interlock's checkpoint
 * through the session manager Interlock hands your factory; `resume` answers each decided node's
 * interrupt by id in any process, and an approved node runs once its decision is recorded.
 *
 * @example
 * const maintenance = createStrandsGraph({
 *   name: 'maintenance', interlock,
 *   orchestrator: (sessionManager) => new Graph({ nodes: [inspector(), cleanup()], edges: [['inspector', 'cleanup']], sessionManager }),
 *   ask: { cleanup: () => ({ resources: 'older than 5 days' }) },
 * });
 */
export function createStrandsGraph(o: StrandsGraphOptions): StrandsGraph {
  checkOptions(o);
  const il = o.interlock;
  const version = o.version ?? '1';
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${o.name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  const ctx: Ctx = { o, gate };
  const held = leasedRuns<StrandsGraphResult>(il, { agent: o.name, version, integration: 'strands-graph' });
  return {
    name: o.name,
    version,
    async invoke(input, opts = {}) {
      const threadId = turnThread(input, opts, 'the task');
      return held(threadId, true, (run) => runGraph(ctx, run, threadId, input, runTurn(run.messages.length, input)));
    },
    async resume(threadId) {
      return held(threadId, false, (run) => resumeGraph(ctx, run, threadId));
    },
    async abort(threadId, by = `agent:${o.name}`) {
      return il.threads.abort(threadId, by);
    },
  };
}

/** One orchestrator invocation over a held thread, then its save: a pause on the questions it stopped on, or its end. */
async function runGraph(
  ctx: Ctx,
  run: ThreadRun,
  threadId: string,
  input: string | InterruptResponseContentData[],
  turn: string,
): Promise<StrandsGraphResult> {
  const waiting = (run.state?.waiting ?? []) as Waiting[];
  // A finished thread's next task starts a new run of the orchestrator; a paused one continues.
  const saved = waiting.length ? ((run.state?.framework as { snapshots?: SavedSnapshots })?.snapshots ?? {}) : {};
  const storage = new CheckpointSnapshots(saved);
  const session = new SessionManager({ sessionId: 'interlock', storage: { snapshot: storage } });
  const orchestrator = await ctx.o.orchestrator(session, threadId);
  if (!orchestrator || (orchestrator as { sessionManager?: unknown }).sessionManager !== session)
    throw new ConfigError(
      `${INTEGRATION}: "orchestrator" must build a Graph or Swarm with the session manager Interlock hands it — orchestrator: (sessionManager) => new Graph({ nodes, edges, sessionManager }) — so its state is kept in Interlock's checkpoint.`,
    );
  const calls = ctx.gate.forRun(threadId, waiting, turn);
  const stopped: Stopped[] = [];
  const byNode = new Map(waiting.flatMap((w) => (w.node ? [[w.node, w] as const] : [])));
  const off = orchestrator.addHook(BeforeNodeCallEvent, (e) => beforeNode(ctx, calls, threadId, byNode, stopped, e));
  let result: MultiAgentResult;
  try {
    result = await (orchestrator as Graph).invoke(input);
  } finally {
    off();
  }
  refuseForeign(result, stopped, threadId);
  const { items, waiting: next, known } = await calls.collectPause(stopped);
  const text = contentText(result);
  const newMessages = [
    ...(typeof input === 'string' ? [{ role: 'user', content: [{ type: 'text', text: input }] }] : []),
    ...(text ? [{ role: 'assistant', content: [{ type: 'text', text }] }] : []),
  ];
  const state: AdapterState = { adapter: 'strands-graph', waiting: next, framework: { snapshots: storage.dump() } };
  return settleRun(run, { threadId, newMessages, state, items, known, proposer: `agent:${ctx.o.name}`, text, result });
}

/**
 * Interlock's answer to `BeforeNodeCallEvent` for a node that asks: its recorded decision or the
 * policy's verdict. An approved (or automatic) node's authorization is consumed under the ledger
 * before the node runs, so it runs on one decision once.
 */
async function beforeNode(
  ctx: Ctx,
  calls: RunCalls,
  threadId: string,
  byNode: ReadonlyMap<string, Waiting>,
  stopped: Stopped[],
  e: BeforeNodeCallEvent,
): Promise<void> {
  const ask = ctx.o.ask[e.nodeId];
  if (!ask) return;
  const id = byNode.get(e.nodeId)?.toolCallId ?? `${e.nodeId}:${randomBytes(6).toString('hex')}`;
  const call: AdapterCall = { threadId, toolCallId: id, tool: e.nodeId, args: await ask(e) };
  const c = await calls.check(call);
  switch (c.kind) {
    case 'block':
      await ctx.gate.recordBlock(call, c);
      e.cancel = c.message;
      return;
    case 'not_run':
      e.cancel = c.message;
      return;
    case 'ask':
    case 'wait':
      raise(e, call, c, stopped, { node: e.nodeId });
      return;
    default: {
      const r = await ctx.gate.run(
        call,
        (_args, ledger) => Promise.resolve({ node: e.nodeId, key: ledger.idempotencyKey }),
        c,
      );
      if (r.status !== 'succeeded') e.cancel = r.status === 'refused' ? `Not run: ${r.message}` : r.error;
    }
  }
}

/** Continue a paused thread: each decided node's interrupt answered by id; nothing runs while all still wait. */
async function resumeGraph(ctx: Ctx, run: ThreadRun, threadId: string): Promise<StrandsGraphResult> {
  const r = await decidedAnswers<Waiting>(ctx.gate, run, threadId);
  if ('result' in r) return r.result;
  return runGraph(ctx, run, threadId, r.answers, runTurn(run.messages.length, r.waiting));
}

/** Interlock answers only its own interrupts: a node agent's own (its tools' hooks) stops the run, nothing saved. */
function refuseForeign(result: MultiAgentResult, stopped: Stopped[], threadId: string): void {
  const ours = new Set(stopped.map((s) => s.extra.interruptId));
  const foreign = (result.interrupts ?? []).filter((i) => !ours.has(i.id));
  if (foreign.length === 0) return;
  throw new ConfigError(
    `${INTEGRATION}: the run stopped on interrupt(s) Interlock did not raise (${foreign.map((i) => i.id).join(', ')}); nothing of it was saved. Interlock answers only the questions of the nodes in "ask": put the decision in Interlock's policy, or answer that interrupt before the orchestrator is handed to Interlock.`,
    { threadId, reason: 'foreign_interrupt', interrupts: foreign.map((i) => i.id) },
  );
}

/** The text of the orchestrator's combined result. */
function contentText(result: MultiAgentResult): string {
  return result.content.map((b) => (b.type === 'textBlock' ? b.text : '')).join('');
}

/** Refuse options the adapter cannot run with, when it is built. */
function checkOptions(o: StrandsGraphOptions): void {
  if (!o || typeof o !== 'object' || !o.interlock)
    throw new ConfigError('createStrandsGraph needs options: { name, interlock, orchestrator, ask }.');
  if (typeof o.name !== 'string' || o.name.length === 0)
    throw new ConfigError('createStrandsGraph: "name" is required (threads carry it; the worker resumes by it).');
  if (typeof o.orchestrator !== 'function')
    throw new ConfigError(
      'createStrandsGraph: "orchestrator" must be (sessionManager) => new Graph({ nodes, edges, sessionManager }) (or a Swarm).',
    );
  if (!o.ask || typeof o.ask !== 'object')
    throw new ConfigError(
      'createStrandsGraph: "ask" lists the nodes that ask before they run: { cleanup: () => ({ ... }) }.',
    );
}
