/** One side effect seen by the fake payment API. */
export interface PaymentEffect {
  kind: string;
  args: Record<string, unknown>;
  idempotencyKey: string;
}

/**
 * An in-memory stand-in for an external API that dedupes by idempotency key,
 * as real payment APIs do, and records every side effect it applied.
 */
export class FakePayments {
  readonly effects: PaymentEffect[] = [];
  /** Calls received, including deduped retries. */
  calls = 0;
  private readonly byKey = new Map<string, unknown>();

  apply(kind: string, args: Record<string, unknown>, idempotencyKey: string): unknown {
    this.calls++;
    const prior = this.byKey.get(idempotencyKey);
    if (prior !== undefined) return prior;
    const result = { id: `${kind}_${this.effects.length + 1}`, ...args };
    this.effects.push({ kind, args, idempotencyKey });
    this.byKey.set(idempotencyKey, result);
    return result;
  }

  count(kind: string): number {
    return this.effects.filter((e) => e.kind === kind).length;
  }
}
