import type { RequestStatus, Reviewer } from '../core/index.ts';

/**
 * The rows and queries of the store: what its operations (src/store/types.ts) read and write.
 */

/** A thread's lifecycle as the service reports it. */
export type ThreadStatus = 'running' | 'interrupted' | 'completed' | 'failed' | 'aborted';

/** A conversation thread. */
export interface ThreadRow {
  id: string;
  agent: string;
  agentVersion: string;
  status: ThreadStatus;
  /** Number of messages stored for the thread (the next message's seq). */
  messageCount: number;
  abortRequested: boolean;
  metadata: Record<string, unknown>;
  /** Process running the thread's loop now, if any. */
  leaseOwner: string | null;
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A checkpoint: the loop state at one point, referring to the first `messageCount` messages. */
export interface CheckpointRow {
  id: string;
  threadId: string;
  messageCount: number;
  schemaVersion: number;
  state: Record<string, unknown>;
  createdAt: number;
}

/** A durable job: resume a thread, deliver a notification… */
export interface JobRow {
  id: string;
  kind: string;
  threadId: string | null;
  requestId: string | null;
  payload: Record<string, unknown>;
  status: 'ready' | 'running' | 'done' | 'dead';
  attempts: number;
  runAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  lastError: string | null;
  createdAt: number;
}

/** One row of the execute-once ledger. */
export interface ExecutionRow {
  key: string;
  requestId: string | null;
  threadId: string | null;
  tool: string;
  args: Record<string, unknown>;
  actionHash: string;
  /** `abandoned`: the code stopped on purpose (an interrupt) before any side effect; the key is not reused. */
  status: 'running' | 'succeeded' | 'failed' | 'abandoned';
  leaseOwner: string | null;
  leaseUntil: number | null;
  attempts: number;
  result: unknown;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  /** The tier the policy gave a call that ran without a person (`auto`, `notify`); null for approved actions and older rows. */
  tier?: string | null;
}

/** A reviewer known to the store; only a hash of the token is kept. */
export interface ReviewerRow extends Reviewer {
  name: string;
  tokenHash: string;
  revoked: boolean;
  createdAt: number;
}

/**
 * A browser session of the web UI. The cookie holds a random value; the store
 * keeps only its SHA-256 (`idHash`), like reviewer tokens.
 */
export interface SessionRow {
  idHash: string;
  reviewerId: string;
  createdAt: number;
  /** Epoch ms after which the session is refused (absolute, not sliding). */
  expiresAt: number;
}

/** Filters of the approval queue. */
export interface RequestQuery {
  status?: RequestStatus;
  roles?: readonly string[];
  tool?: string;
  threadId?: string;
  /**
   * `expiry`: soonest-expiring first; `newest`: newest first (default); `amount`: the numeric
   * `amount` argument, largest first, requests without one last.
   */
  order?: 'newest' | 'expiry' | 'amount';
  limit?: number;
  cursor?: string;
  /** Only planted checks (true) or only real requests (false); both when absent. */
  planted?: boolean;
  /** Only this tier (`approve`, `escalate`…). */
  tier?: string;
  /** Only these requests (a page patching rows it shows). */
  ids?: readonly string[];
  /** Free text: a case-insensitive substring of the tool, the reason or the arguments' JSON text. */
  text?: string;
  /**
   * Argument values: each named top-level argument equals the value, compared as text and
   * case-insensitively (`{ orderId: 'ORD-7' }`). Names are plain identifiers.
   */
  args?: Readonly<Record<string, string>>;
}

/** A vote towards a request's quorum, or the decision that resolved it. */
export interface VoteRow {
  requestId: string;
  reviewer: string;
  type: string;
  version: number;
  createdAt: number;
}

/** Aggregate over past executions for policy rules. */
export interface AggregateQuery {
  tool: string;
  fn: 'sum' | 'count';
  field?: string;
  groupBy?: { field: string; value: unknown };
  since: number;
  outcome: 'executed' | 'failed';
}

/** A run lease taken (or found busy), with the thread's latest checkpoint when it was read after the claim. */
export interface ThreadClaim {
  claimed: boolean;
  thread: ThreadRow;
  latest?: { checkpoint: CheckpointRow | undefined; messages: unknown[] };
}
