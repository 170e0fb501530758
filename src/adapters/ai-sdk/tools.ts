import type { ModelMessage, Tool, ToolSet } from 'ai';
import {
  CallRefusedError,
  noteBypass,
  type AdapterCall,
  type CallCheck,
  type InterlockExecution,
  type RunCalls,
  type ThreadRun,
} from '../core/index.ts';
import { HOW, type AiSdkContext } from './context.ts';
import type { Part } from './messages.ts';

/**
 * The app's tools for one run, each `execute` wrapped: it runs only under a recorded reason (the
 * policy or a decision), at most once, with the arguments that reason authorizes.
 */
export function wrapTools<TOOLS extends ToolSet>(
  ctx: AiSdkContext<TOOLS>,
  tools: TOOLS,
  threadId: string,
  calls: RunCalls,
): TOOLS {
  const wrapped: Record<string, Tool> = {};
  for (const [name, t] of Object.entries(tools) as Array<[string, Tool]>) {
    const execute = ctx.originals.get(name) as Tool['execute'];
    if (typeof execute !== 'function') {
      wrapped[name] = t;
      continue;
    }
    wrapped[name] = {
      ...t,
      execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
        const call: AdapterCall = {
          threadId,
          toolCallId: options.toolCallId,
          tool: name,
          args: input as Record<string, unknown>,
        };
        const known = calls.known(call.toolCallId);
        // The SDK runs a call without asking the approval hook only when it was not handed the hook.
        if (!known) {
          noteBypass(`call ${call.toolCallId} of "${name}" (no toolApproval)`);
          throw new CallRefusedError(call, { code: 'not_wired', message: `Not run: ${HOW}` });
        }
        const r = await ctx.gate.run(
          call,
          async (args, ledger) => {
            const interlock: InterlockExecution = { idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt };
            return await (execute as (i: unknown, opts: unknown) => unknown)(args, { ...options, interlock });
          },
          known,
        );
        if (r.status === 'refused') throw new CallRefusedError(call, r);
        if (r.status === 'failed') throw new Error(r.error);
        // The tool's own typed output, edited or not (UIs render it by the tool's type); the edit is in the audit.
        return r.result;
      },
    };
  }
  return wrapped as TOOLS;
}

/** Run an approved call of a step that still waits on other calls, as the SDK's result part for it. */
export async function runEarly<TOOLS extends ToolSet>(
  ctx: AiSdkContext<TOOLS>,
  run: ThreadRun,
  threadId: string,
  toolCallId: string,
  c: Extract<CallCheck, { kind: 'approved' }>,
): Promise<unknown> {
  const callPart = (run.messages as ModelMessage[])
    .flatMap((m) => (m.role === 'assistant' && typeof m.content !== 'string' ? (m.content as Part[]) : []))
    .findLast((p) => p.type === 'tool-call' && p.toolCallId === toolCallId) as
    { toolName: string; input: unknown } | undefined;
  const tool = c.outcome.request.tool;
  const call: AdapterCall = {
    threadId,
    toolCallId,
    tool: callPart?.toolName ?? tool,
    args: (callPart?.input ?? {}) as Record<string, unknown>,
  };
  const execute = ctx.originals.get(call.tool) as ((i: unknown, opts: unknown) => unknown) | undefined;
  if (!execute) throw new CallRefusedError(call, { code: 'not_wired', message: `Tool ${call.tool} has no execute.` });
  const r = await ctx.gate.run(
    call,
    async (args, ledger) => {
      const interlock: InterlockExecution = { idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt };
      return await execute(args, { toolCallId, messages: run.messages, interlock });
    },
    c,
  );
  // Not run now (still running elsewhere, or refused): nothing is kept, the next resume tries again.
  if (r.status === 'refused') return undefined;
  const output =
    r.status === 'succeeded'
      ? typeof r.result === 'string'
        ? { type: 'text', value: r.result }
        : { type: 'json', value: r.result ?? null }
      : { type: 'error-text', value: r.error };
  return { type: 'tool-result', toolCallId, toolName: call.tool, output };
}
