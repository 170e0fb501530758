import { createMiddleware, ToolMessage } from 'langchain';
import { isCommand, type Command } from '@langchain/langgraph';
import { ConfigError } from '../../core/index.ts';
import {
  createCallGate,
  schemasOf,
  withExecution,
  type AdapterCall,
  type CallCheck,
  type CallGate,
} from '../core/index.ts';
import { commandJson, commandOf } from './command.ts';
import { decideCall, saveConversation, type InterlockMiddlewareOptions } from './decide-call.ts';
import { reusedCallId } from './messages.ts';
import { pauseWholeStep } from './step-pause.ts';

type ToolCallLike = { id?: string; name: string; args: Record<string, unknown> };
type ToolResultJson =
  | { content: unknown; status?: 'success' | 'error' }
  | { command: { update?: unknown; goto?: unknown; graph?: string } };

const message = (tc: ToolCallLike, content: unknown, status: 'success' | 'error' = 'success') =>
  new ToolMessage({ content: content as string, tool_call_id: tc.id ?? '', name: tc.name, status });

/**
 * Run a call the gate let through (auto, or approved) once under the ledger, and answer the graph:
 * the tool's ToolMessage, or its Command (a state update, a handoff) as the tool returned it.
 */
async function runTool(
  gate: CallGate,
  tc: ToolCallLike,
  call: AdapterCall,
  c: Extract<CallCheck, { kind: 'run' | 'approved' }>,
  handle: (args: Record<string, unknown>) => unknown,
): Promise<ToolMessage | Command> {
  const r = await gate.run<ToolResultJson>(
    call,
    async (args, ledger) => {
      const out: unknown = await withExecution(
        { idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt },
        async () => handle(args),
      );
      if (ToolMessage.isInstance(out)) return { content: out.content, ...(out.status ? { status: out.status } : {}) };
      if (isCommand(out)) return { command: commandJson(out) };
      throw new ConfigError(
        `Tool ${tc.name} returned neither a ToolMessage nor a Command; Interlock records one of those.`,
      );
    },
    c,
  );
  if (r.status === 'refused') return message(tc, `Not run: ${r.message}`, 'error');
  if (r.status === 'failed') return message(tc, `The tool failed: ${r.error}`, 'error');
  // A Command goes to the graph as the tool returned it — rebuilt from the ledger's record when the
  // call replays, so a re-run applies the same update, not a new one.
  if ('command' in r.result) return commandOf(r.result.command);
  const content =
    r.edited && typeof r.result.content === 'string'
      ? `${gate.texts.edited(r.args)} Result: ${r.result.content}`
      : r.result.content;
  return message(tc, content, r.result.status ?? 'success');
}

/**
 * Interlock in front of a LangChain `createAgent` agent's tools, in place of
 * `humanInTheLoopMiddleware`. Each tool call is gated by Interlock's policy:
 * `auto`/`notify` run under the execute-once ledger; `block` answers with the
 * rule's reason; `approve`/`escalate` open a durable Interlock request and
 * `interrupt()` with LangChain's HITL shape plus the request's id, version and
 * hash — one interrupt with every action when all calls of a step wait on
 * reviewers, one per call when a sibling may run now. On resume the call follows Interlock's recorded decision, never the
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
  return createMiddleware({
    name: 'InterlockMiddleware',
    afterModel: async (state, runtime) => {
      const messages = (state as { messages?: unknown[] }).messages;
      await pauseWholeStep(il, gate, { name: o.name, version, proposer }, runtime.configurable?.thread_id, messages);
      return undefined;
    },
    wrapToolCall: async (request, handler) => {
      const tc = request.toolCall as ToolCallLike;
      const threadId = request.runtime.configurable?.thread_id;
      if (!threadId || !tc.id)
        throw new ConfigError(
          'interlockMiddleware needs a thread: run the agent with a checkpointer and { configurable: { thread_id } }.',
        );
      const call: AdapterCall = { threadId, toolCallId: tc.id, tool: tc.name, args: tc.args };
      const conversation = (request.state as { messages?: unknown[] } | undefined)?.messages;
      if (reusedCallId(conversation, tc.id)) return message(tc, gate.texts.reusedCallId(tc.id), 'error');
      const c = await decideCall(il, gate, { name: o.name, version, proposer }, call, conversation);
      if (c.kind === 'block') {
        await gate.recordBlock(call, c);
        return message(tc, c.message, 'error');
      }
      if (c.kind === 'not_run') return message(tc, c.message, c.answered ? 'success' : 'error');
      return runTool(gate, tc, call, c, (args) => handler({ ...request, toolCall: { ...request.toolCall, args } }));
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
