// The shapes of an execution under the ledger: what runs, with which options, and what it came to
// (src/engine/execute.ts runs it).
import type { ApprovalRequest, AuditEventInput } from '../core/index.ts';
import type { ThreadRow, ThreadStatus } from '../store/types.ts';
import type { CheckpointInput, ThreadRef } from './pause.ts';
import type { PreClaim } from './pre-claim.ts';

/** What an execution under the ledger came to. */
export type ExecutionOutcome<T> =
  | { status: 'succeeded'; result: T; replayed: boolean; key: string; thread?: ThreadRow }
  | { status: 'failed'; error: string; replayed: boolean; key: string; thread?: ThreadRow }
  /** Another process holds the claim and its lease is live: try again later. */
  | { status: 'in_progress'; key: string; leaseUntil: number | null };

/** What runs: a tool call, with the key external APIs can dedupe on. */
export interface ExecutionInput {
  key: string;
  tool: string;
  args: Record<string, unknown>;
  threadId?: string | null;
  requestId?: string | null;
  /** Audit event type for success; default `executed`. */
  auditType?: 'executed' | 'auto_executed';
  /** Extra audit payload (why it ran: tier, rule, trust grant). */
  auditPayload?: Record<string, unknown>;
  /** Tell a role after it ran (the `notify` tier). */
  notifyRole?: string | null;
}

/** Options of one execution. */
export interface ExecuteOptions {
  /** How long the claim is held before another process may take it over (default: the engine's `leaseMs`). */
  leaseMs?: number;
  /**
   * Errors that mean "stopped on purpose before any side effect" (an interrupt
   * raised inside a tool): the claim is marked abandoned and the error rethrown.
   */
  abandonIf?: (err: unknown) => boolean;
  /**
   * A checkpoint to commit in the claim's transaction: the caller's state before
   * the side effect (the agent loop's, with the model output that proposed the
   * call) becomes durable together with the claim, in one commit instead of two.
   * Written even when the claim finds the key already finished or held.
   */
  checkpoint?: { thread: ThreadRef; checkpoint: CheckpointInput; status: ThreadStatus; audit?: AuditEventInput[] };
  /**
   * Read the thread's row in the outcome's transaction and return it as `thread` (when this
   * execution recorded the outcome). The agent loop's next boundary reads the abort flag from it
   * instead of asking the database again right after the commit.
   */
  readThread?: boolean;
  /**
   * The key was minted for this call alone, so no retry can name it (the MCP gateway's automatic
   * call without a client call id): nothing is claimed before `fn` runs, and the finished ledger row
   * and its audit event are written after it, in one commit shared with other such calls
   * (src/engine/unclaimed.ts). Automatic calls only: an execution under a request is refused. A
   * `notify` call (its job) or one with `checkpoint` is claimed as usual.
   */
  unclaimed?: boolean;
  /**
   * The claim was taken already, with the decision that authorized the request
   * ({@link DecideOptions.claimExecution}): no claim transaction; `fn` runs as the claim's first
   * attempt and the outcome is recorded as usual. Only the object the decision returned counts, once,
   * for this call's key and action, with half its lease left; otherwise the call claims in a transaction
   * of its own as without this option (a replay, `in_progress`, a takeover, or a refusal).
   */
  claimed?: PreClaim;
  /**
   * The call's request, as this engine returned it authorized (`Interlock.callOutcome`, `requestOutcome`,
   * `getRequest(id, { forExecution: true })`): the
   * claim is then written from the engine's own copy of it without reading first — the request's next
   * version checked against the one read, the claim a checked insert; one round trip on PostgreSQL.
   * Should the request have moved since (decided, claimed or aborted elsewhere), nothing of that
   * transaction is written and the call claims reading, as without this option. Any other object (one
   * built or changed by the caller is never trusted: the engine's copy is what is checked and written)
   * claims reading too.
   */
  request?: ApprovalRequest;
}
