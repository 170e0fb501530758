import type { z } from 'zod';
import type { Policy } from '../core/index.ts';
import type { Store, StoreTx } from '../store/types.ts';

/** What the engine knows about a tool: its argument schema, for validating edits. */
export interface ToolSchemaEntry {
  schema: z.ZodType<Record<string, unknown>>;
  description?: string;
  /**
   * A step the loop itself asks about (a graph node), not a tool behind the policy: an edit is
   * checked against `schema` and keeps the request's tier, role and quorum (no policy re-run).
   */
  ungated?: boolean;
  /**
   * The arguments that name what a call acts on — an order, a customer, an account
   * (`['orderId', 'customerId']`). Requests whose arguments share a value under one of these names are
   * related: a reviewer sees them together on the card, with their sums.
   */
  subject?: readonly string[];
  /** The argument holding a call's amount, summed over related requests (default `amount`, when a number). */
  amount?: string;
  /**
   * Facts about a call, read again when a reviewer opens its card and before they decide: cheap,
   * read-only and current (an order's total, what was refunded so far). Without it the card shows the
   * evidence recorded when the request opened, dated.
   */
  facts?: (
    args: Record<string, unknown>,
    ctx: { threadId: string },
  ) => Promise<Record<string, unknown>> | Record<string, unknown>;
}

/** Shared dependencies of the engine's operations. */
export interface EngineContext {
  store: Store;
  policy: Policy;
  tools: ReadonlyMap<string, ToolSchemaEntry>;
  /** Milliseconds since the epoch; replaceable in tests. */
  now: () => number;
  /** Role used when a triage evaluator raises a tier without naming one. */
  fallbackRole: string;
  /** Owner id written on leases taken by this process. */
  owner: string;
  /**
   * How long a lease lasts unless renewed: a thread's run lease, an execution
   * claim, a worker's job lease. A process that dies loses its work to another
   * after about this long (the service sets it from `INTERLOCK_LEASE_MS`).
   */
  leaseMs: number;
  /** Called after a transaction commits, for live events (never inside one). */
  emit: (event: EngineEvent) => void;
  /** Events that travel with a transaction's commit (see commit-events.ts). */
  events: CommitEvents;
  /** Uniform in [0, 1): whether a pause places a planted check (replaceable in tests). */
  random: () => number;
}

/** Events that travel with a transaction's commit (see commit-events.ts; the event hub implements it). */
export interface CommitEvents {
  /**
   * Put `events` into transaction `tx`, so other processes hear of them if and only if it commits
   * (even when this process dies right after the commit); true when they went there. After the
   * commit, give them to {@link local}. False (nothing sent) without a bus or outside such a
   * transaction: then emit them after the commit.
   */
  readonly publishIn: (tx: StoreTx, events: readonly EngineEvent[]) => Promise<boolean>;
  /** Deliver to this process's listeners only: for events that went to the others with their commit. */
  readonly local: (e: EngineEvent) => void;
}

/**
 * Something that happened, for live updates (SSE) and metrics. Events of
 * other processes sharing the database arrive with `remote: true`.
 */
export type EngineEvent = EngineEventBody & { remote?: boolean };

/** The event itself. */
export type EngineEventBody =
  | { type: 'approval.created'; requestId: string; threadId: string; tool: string; role: string }
  | { type: 'approval.decided'; requestId: string; threadId: string; decision: string; status: string }
  | { type: 'approval.expired'; requestId: string; threadId: string; applied: string }
  | {
      type: 'execution.finished';
      requestId: string | null;
      threadId: string | null;
      tool: string;
      status: 'succeeded' | 'failed';
      /** The tier a call that ran without a person (no request) was gated at: `auto` or `notify`. */
      tier?: string;
    }
  | { type: 'thread.status'; threadId: string; status: string }
  /** Who is looking at a request changed: claimed, renewed or taken over (`claim`), or given back (`null`). */
  | { type: 'claim.changed'; requestId: string; threadId: string; claim: ClaimEventView | null }
  /** A reviewer added an internal note to a request (read it from the API: events carry no note text). */
  | { type: 'note.added'; requestId: string; threadId: string; noteId: string }
  /** A worker left a job for another worker (e.g. it has no agent of that name: a rolling deploy). */
  | { type: 'job.deferred'; jobId: string; threadId: string | null; reason: 'unknown_agent'; agent: string }
  /**
   * Events of other processes may have been missed: the connection that carries them (PostgreSQL
   * LISTEN) was lost and is back. What a listener shows may be stale: reload it from the store.
   */
  | { type: 'events.missed'; threadId?: undefined };

/** A claim as the `claim.changed` event carries it (src/engine/claims.ts). */
export interface ClaimEventView {
  reviewer: string;
  name: string;
  /** ISO time the holder first claimed it. */
  since: string;
  /** ISO time it lapses unless renewed. */
  expiresAt: string;
  /** Taken by opening the card. */
  auto: boolean;
}
