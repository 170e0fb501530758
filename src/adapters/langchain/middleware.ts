import { createMiddleware, ToolMessage } from 'langchain';
import { Command, interrupt, isCommand } from '@langchain/langgraph';
import { load } from '@langchain/core/load';
import { ConfigError, type ApprovalRequest } from '../../core/index.ts';
import type { CheckpointInput, Interlock, RunnerResult, ThreadRef, ThreadRunner } from '../../engine/index.ts';
import { toThreadMessages } from './messages.ts';
import {
  ADAPTER_STATE_VERSION,
  createCallGate,
  interruptsOf,
  schemasOf,
  withExecution,
  type AdapterCall,
  type CallCheck,
  type CallGate,
  type CallGateOptions,
  type AdapterState,
} from '../core/index.ts';

export { interlockRun, type InterlockExecution } from '../core/index.ts';

/** Options of {@link interlockMiddleware}. */
export interface InterlockMiddlewareOptions extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  interlock: Interlock;
  /** The agent's name: Interlock threads carry it, and the worker resumes them with the runner of that name. */
  name: string;
  /** Stored with each thread (default `1`). */
  version?: string;
  /** The agent's tools: their zod schemas validate reviewers' edits (a tool without one can't be edited). */
  tools?: ReadonlyArray<{ name: string; schema?: unknown; description?: string }>;
}

/** What the middleware's `interrupt()` carries: LangChain's HITL request shape plus Interlock's request. */
export interface InterlockInterrupt {
  actionRequests: Array<{ name: string; args: Record<string, unknown>; description: string }>;
  reviewConfigs: Array<{ actionName: string; allowedDecisions: Array<'approve' | 'edit' | 'reject'> }>;
  interlock: {
    requestId: string;
    version: number;
    actionHash: string;
    toolCallId: string;
    role: string;
    expiresAt: string;
  };
}

type ToolCallLike = { id?: string; name: string; args: Record<string, unknown> };
type ToolResultJson =
  | { content: unknown; status?: 'success' | 'error' }
  | { command: { update?: unknown; goto?: unknown; graph?: string } };

/** A tool's Command as JSON for the ledger (LangChain messages serialize themselves). */
function commandJson(cmd: Command): { update?: unknown; goto?: unknown; graph?: string } {
  const json = (v: unknown) => (v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as unknown));
  const goto = json(cmd.goto);
  return {
    ...(cmd.update === undefined ? {} : { update: json(cmd.update) }),
    ...(goto === undefined || (Array.isArray(goto) && goto.length === 0) ? {} : { goto }),
    ...(cmd.graph ? { graph: cmd.graph } : {}),
  };
}

/** The Command again from the ledger's JSON: LangChain's `load` revives the messages in its update. */
async function commandOf(j: { update?: unknown; goto?: unknown; graph?: string }): Promise<Command> {
  const update = j.update === undefined ? undefined : await load<Record<string, unknown>>(JSON.stringify(j.update));
  return new Command({
    ...(update === undefined ? {} : { update }),
    ...(j.goto === undefined ? {} : { goto: j.goto as string | string[] }),
    ...(j.graph ? { graph: j.graph } : {}),
  });
}

/** The interrupt payload of a pending request. */
function payload(req: ApprovalRequest): InterlockInterrupt {
  return {
    actionRequests: [{ name: req.tool, args: req.args, description: `${req.reason} (needs a ${req.role})` }],
    reviewConfigs: [{ actionName: req.tool, allowedDecisions: ['approve', 'edit', 'reject'] }],
    interlock: {
      requestId: req.id,
      version: req.version,
      actionHash: req.actionHash,
      toolCallId: req.toolCallId ?? '',
      role: req.role,
      expiresAt: new Date(req.expiresAt).toISOString(),
    },
  };
}

/**
 * Gate a call and, when it needs a person, make its request durable (once: a re-run finds it by
 * thread + call id) and `interrupt()` until Interlock has a decision. Each pass asks Interlock again:
 * the resume value is not a decision, Interlock's record is. Shared by the middleware and the graph helper.
 */
async function decideCall(
  il: Interlock,
  gate: CallGate,
  who: { name: string; version: string; proposer: string },
  call: AdapterCall,
  conversation?: readonly unknown[],
): Promise<Exclude<CallCheck, { kind: 'ask' | 'wait' }>> {
  let c = await gate.check(call);
  if (c.kind === 'ask') {
    // Durable before the interrupt: Interlock holds the request (with its audit and notifications) and
    // the conversation so far (what the reviewer reads), the graph's checkpointer holds the graph.
    const item = await gate.pauseItem(call, c);
    await saveConversation(il, who, call.threadId, conversation, (thread, checkpoint) =>
      il.pause({ thread, ...(checkpoint ? { checkpoint } : {}), items: [item], proposer: who.proposer }),
    );
    c = await gate.check(call);
  }
  while (c.kind === 'wait') {
    interrupt(payload(c.outcome.request));
    c = await gate.check(call);
  }
  if (c.kind === 'ask') throw new ConfigError(`Call ${call.toolCallId} needs a request and has none; nothing ran.`);
  return c;
}

/** Writes of one thread's conversation, one after the other (parallel calls of a step pause at once). */
const writing = new Map<string, Promise<unknown>>();

/**
 * Write what is new in the graph's conversation since the thread's last save, with `write` (a pause,
 * or the turn's end), one write per thread at a time so that parallel pauses never save it twice.
 */
async function saveConversation<T>(
  il: Interlock,
  who: { name: string; version: string },
  threadId: string,
  conversation: readonly unknown[] | undefined,
  write: (thread: ThreadRef, checkpoint: CheckpointInput | undefined) => Promise<T>,
): Promise<T> {
  const before = writing.get(threadId) ?? Promise.resolve();
  const mine = before.then(async () => {
    const thread: ThreadRef = {
      id: threadId,
      agent: who.name,
      agentVersion: who.version,
      metadata: { integration: 'langchain' },
    };
    if (!conversation) return write(thread, undefined);
    const saved = (await il.threads.getThread(threadId))?.messageCount ?? 0;
    const fresh = toThreadMessages(conversation).slice(saved);
    const state: AdapterState = { adapter: 'langchain', waiting: [] };
    return write(thread, {
      newMessages: fresh,
      state: state as unknown as Record<string, unknown>,
      schemaVersion: ADAPTER_STATE_VERSION,
    });
  });
  const settled = mine.catch(() => undefined);
  writing.set(threadId, settled);
  try {
    return await mine;
  } finally {
    if (writing.get(threadId) === settled) writing.delete(threadId);
  }
}

/**
 * Interlock in front of a LangChain `createAgent` agent's tools, in place of
 * `humanInTheLoopMiddleware`. Each tool call is gated by Interlock's policy:
 * `auto`/`notify` run under the execute-once ledger; `block` answers with the
 * rule's reason; `approve`/`escalate` open a durable Interlock request and
 * `interrupt()` with LangChain's HITL shape plus the request's id, version and
 * hash. On resume the call follows Interlock's recorded decision, never the
 * resume value: approve runs the authorized arguments once, edit the reviewer's
 * (re-validated and re-gated under the original tool's policy), reject and
 * respond answer with a ToolMessage. The graph's checkpointer stays yours.
 *
 * @example
 * const agent = createAgent({ model, tools, checkpointer,
 *   middleware: [interlockMiddleware({ interlock, name: 'order-support' })] });
 */
export function interlockMiddleware(o: InterlockMiddlewareOptions) {
  if (!o?.interlock) throw new ConfigError('interlockMiddleware needs { interlock, name }.');
  if (typeof o.name !== 'string' || !o.name)
    throw new ConfigError('interlockMiddleware: "name" must be a non-empty string.');
  const il = o.interlock;
  const version = o.version ?? '1';
  const proposer = `agent:${o.name}`;
  il.registerTools(
    schemasOf(
      Object.fromEntries((o.tools ?? []).map((t) => [t.name, { parameters: t.schema, description: t.description }])),
    ),
  );
  const gate = createCallGate({
    interlock: il,
    proposer,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  const message = (tc: ToolCallLike, content: unknown, status: 'success' | 'error' = 'success') =>
    new ToolMessage({ content: content as string, tool_call_id: tc.id ?? '', name: tc.name, status });

  return createMiddleware({
    name: 'InterlockMiddleware',
    wrapToolCall: async (request, handler) => {
      const tc = request.toolCall as ToolCallLike;
      const threadId = request.runtime.configurable?.thread_id;
      if (!threadId || !tc.id)
        throw new ConfigError(
          'interlockMiddleware needs a thread: run the agent with a checkpointer and { configurable: { thread_id } }.',
        );
      const call: AdapterCall = { threadId, toolCallId: tc.id, tool: tc.name, args: tc.args };
      const conversation = (request.state as { messages?: unknown[] } | undefined)?.messages;
      const c = await decideCall(il, gate, { name: o.name, version, proposer }, call, conversation);
      if (c.kind === 'block') {
        await gate.recordBlock(call, c);
        return message(tc, c.message, 'error');
      }
      if (c.kind === 'not_run') return message(tc, c.message, c.answered ? 'success' : 'error');
      const r = await gate.run<ToolResultJson>(
        call,
        async (args, ledger) => {
          const out = await withExecution({ idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt }, () =>
            handler({ ...request, toolCall: { ...request.toolCall, args } }),
          );
          if (ToolMessage.isInstance(out))
            return { content: out.content, ...(out.status ? { status: out.status } : {}) };
          if (isCommand(out)) return { command: commandJson(out) };
          throw new ConfigError(
            `Tool ${tc.name} returned neither a ToolMessage nor a Command; Interlock records one of those.`,
          );
        },
        c,
      );
      if (r.status === 'refused') return message(tc, `Not run: ${r.message}`, 'error');
      if (r.status === 'failed') return message(tc, `The tool failed: ${r.error}`, 'error');
      // A Command (a state update, a handoff) goes to the graph as the tool returned it — rebuilt from
      // the ledger's record when the call replays, so a re-run applies the same update, not a new one.
      if ('command' in r.result) return commandOf(r.result.command);
      const content =
        r.edited && typeof r.result.content === 'string'
          ? `${gate.texts.edited(r.args)} Result: ${r.result.content}`
          : r.result.content;
      return message(tc, content, r.result.status ?? 'success');
    },
    afterAgent: async (state, runtime) => {
      const threadId = runtime.configurable?.thread_id;
      // The turn ended: the Interlock thread (if the run paused before) is completed, with the rest of
      // the conversation (the results and the answer after the pause).
      if (threadId && (await il.threads.getThread(threadId)))
        await saveConversation(
          il,
          { name: o.name, version },
          threadId,
          (state as { messages?: unknown[] }).messages,
          (thread, cp) => il.checkpoint(thread, cp, 'completed'),
        );
      return undefined;
    },
  });
}

/** Where a proposed action of a graph node stands once Interlock decided (see {@link interlockGraphGate}). */
export type GraphOutcome<T> =
  | { ran: true; result: T; args: Record<string, unknown>; edited: boolean; replayed: boolean }
  | { ran: false; message: string; reason: string };

/**
 * For hand-written LangGraph graphs: Interlock's gate around one proposed action inside a node, in
 * place of a bare `interrupt()`. `act` gates the action; when it needs a person it opens the durable
 * request (or, when LangGraph re-runs the node from its top, finds it by thread + action id) and
 * interrupts until Interlock has a decision; then it runs the action once under the ledger, with the
 * authorized (or edited) arguments and an idempotency key. Parallel nodes interrupt separately and are
 * resumed by id ({@link createLangChainRunner}).
 * @example
 * const gate = interlockGraphGate({ interlock, name: 'payments' });
 * async function wireNode(state, config) {
 *   const r = await gate.act(config, { id: `wire-${state.orderId}`, tool: 'wire', args: state.wire },
 *     (args, { idempotencyKey }) => bank.wire(args, idempotencyKey));
 *   return { log: r.ran ? `wired ${JSON.stringify(r.result)}` : r.message };
 * }
 */
export function interlockGraphGate(o: InterlockMiddlewareOptions) {
  if (!o?.interlock) throw new ConfigError('interlockGraphGate needs { interlock, name }.');
  const il = o.interlock;
  const who = { name: o.name, version: o.version ?? '1', proposer: `agent:${o.name}` };
  il.registerTools(
    schemasOf(
      Object.fromEntries((o.tools ?? []).map((t) => [t.name, { parameters: t.schema, description: t.description }])),
    ),
  );
  const gate = createCallGate({
    interlock: il,
    proposer: who.proposer,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  return {
    async act<T>(
      config: { configurable?: { thread_id?: string; checkpoint_ns?: string } },
      action: { id: string; tool: string; args: Record<string, unknown> },
      fn: (args: Record<string, unknown>, run: { idempotencyKey: string; attempt: number }) => Promise<T>,
    ): Promise<GraphOutcome<T>> {
      const threadId = config?.configurable?.thread_id;
      if (!threadId)
        throw new ConfigError("interlockGraphGate.act needs the node's config with configurable.thread_id.");
      // LangGraph re-runs an interrupted (or crashed) task with the same task id and gives a later run of
      // the node a new one: keyed by it, the action id names one action of one run of the node — a later
      // refund of the same order is a new action, not a replay of the first.
      const task = config.configurable?.checkpoint_ns;
      const toolCallId = task ? `${action.id}@${task}` : action.id;
      const call: AdapterCall = { threadId, toolCallId, tool: action.tool, args: action.args };
      const c = await decideCall(il, gate, who, call);
      if (c.kind === 'block') {
        await gate.recordBlock(call, c);
        return { ran: false, message: c.message, reason: 'blocked' };
      }
      if (c.kind === 'not_run') return { ran: false, message: c.message, reason: c.outcome.state };
      const r = await gate.run(call, (args, ledger) => withExecution(ledger, () => fn(args, ledger)), c);
      if (r.status === 'refused') return { ran: false, message: r.message, reason: r.code };
      if (r.status === 'failed') throw new Error(r.error);
      return { ran: true, result: r.result, args: r.args, edited: r.edited, replayed: r.replayed };
    },
  };
}

/** A compiled `createAgent` agent (or LangGraph graph) as the runner needs it. */
export interface ResumableGraph {
  invoke(input: unknown, config: { configurable: { thread_id: string } }): Promise<unknown>;
  getState(config: { configurable: { thread_id: string } }): Promise<{
    /** Nodes still to run: set when a run stopped midway (an error, a crash) or on an interrupt. */
    next?: readonly string[];
    tasks: ReadonlyArray<{ interrupts?: ReadonlyArray<{ id?: string; value?: unknown }> }>;
  }>;
}

/** What a run of a LangChain thread came to. */
export interface LangChainRunResult extends RunnerResult {
  /** The graph's result (undefined when nothing ran). */
  result?: unknown;
}

/**
 * Run and resume a `createAgent` agent (with {@link interlockMiddleware}) on Interlock's threads, and
 * let the Interlock worker resume them after decisions: register it in `interlock.config.ts`.
 * `resume` turns Interlock's decisions into `Command({ resume })`, matched to each interrupt by id.
 */
export function createLangChainRunner(o: {
  name: string;
  version?: string;
  interlock: Interlock;
  agent: ResumableGraph;
  /** The graph's input for a user message (default `{ messages: [{ role: 'user', content }] }`, as createAgent takes). */
  input?: (text: string) => unknown;
}): Omit<ThreadRunner, 'invoke' | 'resume'> & {
  invoke(input: string, opts?: { threadId?: string }): Promise<LangChainRunResult>;
  resume(threadId: string): Promise<LangChainRunResult>;
} {
  const il = o.interlock;
  const config = (threadId: string) => ({ configurable: { thread_id: threadId } });

  async function pendingOf(threadId: string) {
    const state = await o.agent.getState(config(threadId));
    const open: Array<{ id: string; req: ApprovalRequest | undefined; payload: InterlockInterrupt }> = [];
    for (const task of state.tasks)
      for (const i of task.interrupts ?? []) {
        const p = i.value as InterlockInterrupt | undefined;
        if (!i.id || !p?.interlock) continue;
        const outcome = await il.requestOutcome(p.interlock.requestId);
        open.push({ id: i.id, req: outcome?.state === 'pending' ? outcome.request : undefined, payload: p });
      }
    return open;
  }

  async function after(threadId: string, result: unknown): Promise<LangChainRunResult> {
    const open = await pendingOf(threadId);
    const pending = open.flatMap((x) => (x.req ? [x.req] : []));
    const messages = (result as { messages?: Array<{ content?: unknown }> } | undefined)?.messages ?? [];
    const last = messages.at(-1)?.content;
    return {
      threadId,
      stopReason: open.length ? 'interrupt' : 'end_turn',
      text: open.length || typeof last !== 'string' ? '' : last,
      interrupts: interruptsOf(pending),
      result,
    };
  }

  return {
    name: o.name,
    version: o.version ?? '1',
    async invoke(input, opts = {}) {
      const threadId = opts.threadId ?? `thr_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      const graphInput = o.input ? o.input(input) : { messages: [{ role: 'user', content: input }] };
      const result = await o.agent.invoke(graphInput, config(threadId));
      return after(threadId, result);
    },
    async resume(threadId) {
      const open = await pendingOf(threadId);
      if (open.length === 0) {
        // A run that stopped midway (an error, a crash after its tools ran) continues from the graph's
        // last checkpoint: LangGraph re-runs only what did not finish, so no model call is repeated.
        const state = await o.agent.getState(config(threadId));
        if (!state.next?.length) return { threadId, stopReason: 'end_turn', text: '', interrupts: [] };
        return after(threadId, await o.agent.invoke(null, config(threadId)));
      }
      // Decided calls go on now, each on its own; the ones still pending interrupt again when their
      // task re-runs, and the run reports them.
      const decided = open.filter((x) => !x.req);
      if (decided.length === 0)
        return {
          threadId,
          stopReason: 'interrupt',
          text: '',
          interrupts: interruptsOf(open.flatMap((x) => (x.req ? [x.req] : []))),
        };
      // Each interrupt gets LangChain's decision shape, by id; the middleware follows Interlock's record.
      const resume: Record<string, unknown> = {};
      for (const x of decided) {
        const outcome = await il.requestOutcome(x.payload.interlock.requestId);
        const r = outcome.request;
        resume[x.id] = {
          decisions: [
            outcome.state === 'approved'
              ? outcome.edited
                ? { type: 'edit', editedAction: { name: r.tool, args: outcome.args } }
                : { type: 'approve' }
              : { type: 'reject', message: r.resolution?.message ?? outcome.state },
          ],
          interlock: { requestId: r.id, status: r.status },
        };
      }
      const result = await o.agent.invoke(new Command({ resume }), config(threadId));
      return after(threadId, result);
    },
    async abort(threadId, by = `agent:${o.name}`) {
      return il.threads.abort(threadId, by);
    },
  };
}
