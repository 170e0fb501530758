import { ConfigError } from '../../core/index.ts';
import { createCallGate, schemasOf, withExecution, type AdapterCall } from '../core/index.ts';
import { decideCall, type InterlockMiddlewareOptions } from './decide-call.ts';

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
