import { z } from 'zod';
import { interrupt } from '@langchain/langgraph';
import { ConfigError, type ApprovalRequest } from '../../core/index.ts';
import type { CheckpointInput, Interlock, ThreadRef } from '../../engine/index.ts';
import { toThreadMessages } from './messages.ts';
import {
  ADAPTER_STATE_VERSION,
  type AdapterCall,
  type AdapterState,
  type CallCheck,
  type CallGate,
  type CallGateOptions,
} from '../core/index.ts';

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

/** Interlock's side of one action of an interrupt: the request a reviewer decides it on. */
export interface InterlockActionRequest {
  requestId: string;
  version: number;
  actionHash: string;
  toolCallId: string;
  role: string;
  expiresAt: string;
}

/**
 * What the middleware's `interrupt()` carries: LangChain's `HITLRequest` (`actionRequests` and
 * `reviewConfigs`, one each per action) plus Interlock's requests. A step whose calls all wait on
 * reviewers pauses with one interrupt listing every action; a call still pending after a sibling was
 * decided interrupts on its own, with one action.
 */
export interface InterlockInterrupt {
  actionRequests: Array<{ name: string; args: Record<string, unknown>; description: string }>;
  reviewConfigs: Array<{
    actionName: string;
    /** What the request's rule allows (`decisions`); `edit` only when the tool has a schema to check an edit against. */
    allowedDecisions: Array<'approve' | 'edit' | 'reject'>;
    /** The JSON Schema of the tool's arguments, for an edit form. */
    argsSchema?: Record<string, unknown>;
  }>;
  /** The first action's request (as before several actions shared an interrupt), and `requests`: each action's, in order. */
  interlock: InterlockActionRequest & { requests: InterlockActionRequest[] };
}

/** The JSON Schema of a tool's arguments, when it has one with a JSON form. */
function argsSchemaOf(il: Interlock, tool: string): { edit: boolean; argsSchema?: Record<string, unknown> } {
  const schema = il.toolSchema(tool)?.schema;
  if (!schema) return { edit: false };
  try {
    return { edit: true, argsSchema: z.toJSONSchema(schema) };
  } catch {
    return { edit: true }; // a schema with no JSON form (a transform): edits are still checked by it
  }
}

/** The interrupt payload of pending requests (one action each, in order). */
export function payload(il: Interlock, reqs: readonly ApprovalRequest[]): InterlockInterrupt {
  const requests = reqs.map((req) => ({
    requestId: req.id,
    version: req.version,
    actionHash: req.actionHash,
    toolCallId: req.toolCallId ?? '',
    role: req.role,
    expiresAt: new Date(req.expiresAt).toISOString(),
  }));
  return {
    actionRequests: reqs.map((req) => ({
      name: req.tool,
      args: req.args,
      description: `${req.reason} (needs a ${req.role})`,
    })),
    reviewConfigs: reqs.map((req) => {
      // Edit is offered only for a tool with a schema to check the edit against; respond and a
      // trust-approval are Interlock's own verbs, decided in Interlock.
      const { edit, argsSchema } = argsSchemaOf(il, req.tool);
      const allowed = (['approve', 'edit', 'reject'] as const).filter(
        (d) => (!req.decisions || req.decisions.includes(d)) && (d !== 'edit' || edit),
      );
      return { actionName: req.tool, allowedDecisions: allowed, ...(argsSchema ? { argsSchema } : {}) };
    }),
    interlock: { ...requests[0]!, requests },
  };
}

/** The request ids an interrupt payload waits on. */
export function requestIdsOf(p: InterlockInterrupt): string[] {
  return (p.interlock.requests ?? [p.interlock]).map((r) => r.requestId);
}

/**
 * Gate a call and, when it needs a person, make its request durable (once: a re-run finds it by
 * thread + call id). Returns the call's check after: `wait` with the pending request when it opened one.
 */
export async function openRequest(
  il: Interlock,
  gate: CallGate,
  who: { name: string; version: string; proposer: string },
  call: AdapterCall,
  conversation?: readonly unknown[],
): Promise<CallCheck> {
  const c = await gate.check(call);
  if (c.kind !== 'ask') return c;
  // Durable before the interrupt: Interlock holds the request (with its audit and notifications) and
  // the conversation so far (what the reviewer reads), the graph's checkpointer holds the graph.
  const item = await gate.pauseItem(call, c);
  await saveConversation(il, who, call.threadId, conversation, (thread, checkpoint) =>
    il.pause({ thread, ...(checkpoint ? { checkpoint } : {}), items: [item], proposer: who.proposer }),
  );
  return gate.check(call);
}

/**
 * Gate a call and, when it needs a person, make its request durable (once: a re-run finds it by
 * thread + call id) and `interrupt()` until Interlock has a decision. Each pass asks Interlock again:
 * the resume value is not a decision, Interlock's record is. Shared by the middleware and the graph helper.
 */
export async function decideCall(
  il: Interlock,
  gate: CallGate,
  who: { name: string; version: string; proposer: string },
  call: AdapterCall,
  conversation?: readonly unknown[],
): Promise<Exclude<CallCheck, { kind: 'ask' | 'wait' }>> {
  let c = await openRequest(il, gate, who, call, conversation);
  while (c.kind === 'wait') {
    interrupt(payload(il, [c.outcome.request]));
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
export async function saveConversation<T>(
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
