import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { ConfigError, peopleOfRole, type ApprovalRequest } from '../../core/index.ts';
import type { Interlock, RunnerInterrupt, ToolSchemaEntry } from '../../engine/index.ts';

/** A lease owner for one run: unique, so two runs in one process never share a thread's lease. */
export function runOwner(il: Interlock): string {
  return `${il.owner}:run:${randomBytes(4).toString('hex')}`;
}

/** The pauses of a run as the service, CLI and applications see them. */
export function interruptsOf(requests: readonly ApprovalRequest[]): RunnerInterrupt[] {
  return requests.map((r) => ({
    id: r.id,
    name: r.tool,
    tier: r.tier,
    role: r.role,
    toolCallId: r.toolCallId,
    message: `I've asked ${peopleOfRole(r.role ?? 'reviewer', r.approvalsRequired)} to review this ${r.tool.replace(/_/g, ' ')} before it runs (${r.reason}).`,
  }));
}

/** The last assistant text of a list of framework messages (AI SDK model messages or similar). */
export function lastText(messages: readonly unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: string; content?: unknown };
    if (m?.role !== 'assistant') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const text = m.content
        .filter((p: { type?: string }) => p?.type === 'text')
        .map((p: { text?: string }) => p.text ?? '')
        .join('');
      if (text) return text;
    }
  }
  return '';
}

/** The zod input schemas of framework tools, for the engine's validation of reviewers' edits. */
export function schemasOf(
  tools: Record<string, { inputSchema?: unknown; parameters?: unknown; description?: string }>,
): Record<string, ToolSchemaEntry> {
  const out: Record<string, ToolSchemaEntry> = {};
  for (const [name, t] of Object.entries(tools)) {
    const schema = t.inputSchema ?? t.parameters;
    // A zod schema (v3 or v4) parses; a JSON schema does not: edits of that tool are refused with a clear error.
    if (schema && typeof (schema as { safeParse?: unknown }).safeParse === 'function')
      out[name] = {
        schema: schema as ToolSchemaEntry['schema'],
        ...(typeof t.description === 'string' ? { description: t.description } : {}),
      };
  }
  return out;
}

/** The execution options your tool's `execute` receives, plus what Interlock adds. */
export interface InterlockExecution {
  /** Key to pass to the external API so a retried call is deduplicated (request + action hash, or thread + call). */
  idempotencyKey: string;
  /** 1 on the first try; more when a crashed process's claim was taken over. */
  attempt: number;
}

/**
 * What Interlock adds to the execution options of a wrapped tool: the idempotency key to pass to
 * the external API. Throws when the tool runs outside Interlock (called directly, not through the agent).
 * @example
 * execute: async ({ orderId, amount }, options) => payments.refund({ orderId, amount }, { idempotencyKey: interlockRun(options).idempotencyKey })
 */
export function interlockRun(options?: unknown): InterlockExecution {
  const run = (options as { interlock?: InterlockExecution } | undefined)?.interlock ?? current.getStore();
  if (!run)
    throw new ConfigError(
      'This tool ran outside Interlock: no idempotency key. Run it through the agent an Interlock adapter returns.',
    );
  return run;
}

/** The execution in progress, for frameworks that cannot pass Interlock's options to the tool (LangChain). */
const current = new AsyncLocalStorage<InterlockExecution>();

/** Run `fn` with `run` as the execution {@link interlockRun} returns inside it. */
export function withExecution<T>(run: InterlockExecution, fn: () => T): T {
  return current.run(run, fn);
}
