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

/** What the middleware's `interrupt()` carries: LangChain's HITL request shape plus Interlock's request. */
export interface InterlockInterrupt {
  actionRequests: Array<{ name: string; args: Record<string, unknown>; description: string }>;
  reviewConfigs: Array<{
    actionName: string;
    /** `edit` only when the tool has a schema to check an edit against. */
    allowedDecisions: Array<'approve' | 'edit' | 'reject'>;
    /** The JSON Schema of the tool's arguments, for an edit form. */
    argsSchema?: Record<string, unknown>;
  }>;
  interlock: {
    requestId: string;
    version: number;
    actionHash: string;
    toolCallId: string;
    role: string;
    expiresAt: string;
  };
}

/** The interrupt payload of a pending request. */
export function payload(il: Interlock, req: ApprovalRequest): InterlockInterrupt {
  // Edit is offered only for a tool with a schema to check the edit against (LangChain's HITL shape
  // carries it as argsSchema); a trust-approval and a reviewer's answer are Interlock's own verbs.
  const schema = il.toolSchema(req.tool)?.schema;
  let argsSchema: Record<string, unknown> | undefined;
  try {
    argsSchema = schema ? z.toJSONSchema(schema) : undefined;
  } catch {
    argsSchema = undefined; // a schema with no JSON form (a transform): edits are still checked by it
  }
  return {
    actionRequests: [{ name: req.tool, args: req.args, description: `${req.reason} (needs a ${req.role})` }],
    reviewConfigs: [
      {
        actionName: req.tool,
        allowedDecisions: schema ? ['approve', 'edit', 'reject'] : ['approve', 'reject'],
        ...(argsSchema ? { argsSchema } : {}),
      },
    ],
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
export async function decideCall(
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
    interrupt(payload(il, c.outcome.request));
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
