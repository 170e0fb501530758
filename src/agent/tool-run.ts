import type { ApprovalRequest } from '../core/index.ts';
import { ToolInterrupt, type InterruptAnswer, type InterruptRequest, type Tool, type ToolContext } from './tool.ts';

/** How a call past the gate runs: its idempotency key, the request that authorized it, and what its audit says. */
export interface CallRun {
  key: string;
  requestId: string | null;
  /** The request as the run read it from the engine: the claim is written from the engine's copy of it. */
  request?: ApprovalRequest;
  why: Record<string, unknown>;
  notifyRole: string | null;
}

/**
 * A tool's body under the ledger, answering its `context.interrupt` questions from the call's answers
 * in order. The first unanswered question pauses the call whatever the tool does with the throw: a
 * tool that catches it (a try/catch around its body) or returns a fallback still pauses, and nothing
 * it returned is recorded as the call's result.
 */
export async function runTool(
  tool: Tool,
  args: Record<string, unknown>,
  answers: readonly InterruptAnswer[],
  context: Omit<ToolContext, 'interrupt'>,
): Promise<unknown> {
  let next = 0;
  let asked: ToolInterrupt | undefined;
  const interrupt = (request: InterruptRequest) => {
    const a = answers[next++];
    if (a) return a;
    asked ??= new ToolInterrupt(request);
    throw asked;
  };
  let result: unknown;
  try {
    result = await tool.execute(args, { ...context, interrupt });
  } catch (err) {
    throw asked ?? err;
  }
  if (asked) throw asked;
  return result;
}
