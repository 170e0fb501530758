import type { z } from 'zod';
import { ConfigError } from '../core/index.ts';
import type { Duration, Rule, TimeoutDecision, ToolPolicy } from '../core/index.ts';

/** What a reviewer answered to an interrupt raised inside a tool. */
export type InterruptAnswer =
  | { type: 'approve'; by: string }
  | { type: 'edit'; by: string; args: Record<string, unknown> }
  | { type: 'reject'; by: string; message?: string }
  | { type: 'respond'; by: string; message: string }
  | { type: 'timeout' };

/** A question a tool puts to a person, via `context.interrupt`. */
export interface InterruptRequest {
  /** Short name shown in the queue, e.g. `confirm_address`. */
  name: string;
  /** Why a person is needed. */
  reason: string;
  /** Material for the reviewer (untrusted; redacted). */
  details?: Record<string, unknown>;
  role?: string;
  timeout?: Duration;
  onTimeout?: TimeoutDecision;
}

/** Passed to a tool's `execute`. */
export interface ToolContext {
  threadId: string;
  toolCallId: string;
  /** Stable per call (and per interrupt answer set): pass it to external APIs so retries dedupe. */
  idempotencyKey: string;
  /** Which try this is (a claim taken over after a crash is attempt 2). */
  attempt: number;
  /**
   * Ask a person and wait durably. The first time, the tool stops here and the
   * thread pauses; once answered, the tool runs again from the start and this
   * call returns the answer. Call it several times for multi-step
   * confirmations; answers come back in order. Do side effects after it.
   *
   * It stops the tool by throwing. A tool that catches that (a try/catch around
   * its body) still pauses: the first unanswered question is remembered, and
   * whatever the tool returns or throws afterwards is discarded, not recorded
   * as the call's result. Code after a swallowed question still runs, though,
   * so keep side effects after the questions.
   */
  interrupt(request: InterruptRequest): InterruptAnswer;
  /** Application state kept in the checkpoint. */
  appState: Record<string, unknown>;
}

/** A tool the agent may call. */
export interface Tool<S extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>> {
  name: string;
  description: string;
  schema: S;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<unknown>;
  /**
   * Facts a reviewer needs beside the arguments when this call pauses for approval,
   * read from your systems (e.g. earlier refunds of the order and the customer).
   * Shown on the review card with the customer message, redacted like it; a
   * failure is shown as such and does not stop the pause.
   */
  evidence?(args: z.infer<S>, ctx: { threadId: string }): Promise<Record<string, unknown>> | Record<string, unknown>;
  /**
   * `evidence` is cheap and read-only: read it again when a reviewer opens the card and before they
   * decide, so the card shows current facts, dated, and flags what changed since the pause.
   */
  refreshEvidence?: boolean;
  /**
   * The arguments naming what a call acts on (`['orderId', 'customerId']`): requests of any tool sharing
   * a value under one of them are shown together on the review card, with their sums.
   */
  subject?: ReadonlyArray<keyof z.infer<S> & string>;
}

/**
 * Declare a tool with a zod schema.
 * @example
 * const refund = tool({
 *   name: 'issue_refund',
 *   description: 'Refund an order',
 *   schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
 *   execute: async ({ orderId, amount }, { idempotencyKey }) => payments.refund(orderId, amount, idempotencyKey),
 * });
 */
export function tool<S extends z.ZodType<Record<string, unknown>>>(def: Tool<S>): Tool<S> {
  if (!def || typeof def.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(def.name)) {
    throw new ConfigError(
      `tool(): "name" must be 1-64 letters, digits, "_" or "-" (got ${JSON.stringify(def?.name)}).`,
    );
  }
  if (typeof def.execute !== 'function')
    throw new ConfigError(`tool "${def.name}": "execute" must be an async function.`);
  if (!def.schema || typeof (def.schema as { safeParse?: unknown }).safeParse !== 'function') {
    throw new ConfigError(`tool "${def.name}": "schema" must be a zod schema, e.g. z.object({ orderId: z.string() }).`);
  }
  return def;
}

/** Thrown by `context.interrupt` to stop a tool until a person answers. Never escapes the loop. */
export class ToolInterrupt extends Error {
  readonly request: InterruptRequest;
  constructor(request: InterruptRequest) {
    super(`tool interrupt: ${request.name}`);
    this.name = 'ToolInterrupt';
    this.request = request;
  }
}

/**
 * A tool's policy entry with rules typed by the tool's schema: `when` and `reason`
 * see `args` as the tool declares them (no `Number(args.amount)`). Spread the
 * result into `definePolicy({ tools: { … } })`; a tool's name comes from the tool,
 * so it cannot be misspelt. The name-keyed form keeps working for policies kept
 * apart from code.
 * @example
 * definePolicy({ tools: {
 *   ...policyFor(issueRefund, [
 *     { id: 'large', tier: 'approve', role: 'supervisor', reason: 'over $500', when: ({ args }) => args.amount > 500 },
 *     { id: 'small', tier: 'auto', reason: 'small refund' },
 *   ]),
 * } });
 */
export function policyFor<S extends z.ZodType<Record<string, unknown>>>(
  t: Tool<S>,
  rules: Rule<z.infer<S>>[] | ToolPolicy<z.infer<S>>,
): Record<string, Rule[] | ToolPolicy> {
  // The rules only ever see this tool's (validated) arguments, so widening their input type is sound here.
  return { [t.name]: rules as Rule[] | ToolPolicy };
}
