import { InterlockUsageError } from '../../core/index.ts';
import type { AdapterCall } from '../core/index.ts';

/** The part of a Mastra `generate` (or `approveToolCallGenerate` / `declineToolCallGenerate`) result the adapter reads. */
export interface MastraOutput {
  finishReason?: string;
  runId?: string;
  text?: string;
  suspendPayload?: unknown;
  toolCalls?: Array<{ payload?: { toolCallId?: string; toolName?: string; args?: unknown } }>;
  response?: { messages?: unknown[] };
  error?: unknown;
}

/** The call a suspended Mastra run waits on, as its suspend payload names it. */
export interface SuspendedCall {
  toolCallId: string;
  tool: string;
  args: Record<string, unknown>;
}

/**
 * The tool-call approval a suspended run waits on. A run suspended for another reason (a tool that
 * called `suspend()` itself, a workflow step) is refused: Interlock would not know what resumes it.
 */
export function suspendedCall(out: MastraOutput): SuspendedCall {
  const p = out.suspendPayload as { toolCallId?: unknown; toolName?: unknown; args?: unknown } | undefined;
  const schema = (out.suspendPayload as { resumeSchema?: unknown } | undefined)?.resumeSchema;
  const approval = typeof schema === 'string' && schema.includes('"approved"');
  if (!p || typeof p.toolCallId !== 'string' || typeof p.toolName !== 'string' || !approval)
    throw new InterlockUsageError(
      'not_implemented',
      `The Mastra run ${out.runId ?? ''} suspended for something other than a tool-call approval (a tool or workflow step that called suspend()); Interlock pauses only on tool calls its policy gates, so nothing was saved. Let the tool return, and gate the action with a policy rule instead (see docs/adapters/mastra.md).`,
      { details: { reason: 'mastra_suspend', runId: out.runId ?? null } },
    );
  return { toolCallId: p.toolCallId, tool: p.toolName, args: (p.args ?? {}) as Record<string, unknown> };
}

/** The calls of the step a run suspended in, in the order the model proposed them. */
export function stepCalls(threadId: string, out: MastraOutput): AdapterCall[] {
  return (out.toolCalls ?? []).flatMap((c) => {
    const p = c.payload;
    if (!p || typeof p.toolCallId !== 'string' || typeof p.toolName !== 'string') return [];
    return [{ threadId, toolCallId: p.toolCallId, tool: p.toolName, args: (p.args ?? {}) as Record<string, unknown> }];
  });
}
