import type { ApprovalRequest, RequestStatus, AuditEvent, AuditEventInput, ChainHead } from '../core/index.ts';

export * from './rows.ts';
export * from './claim-note-types.ts';
export * from './attention-types.ts';
export * from './clock-types.ts';
export * from './ledger-types.ts';
import type { StoreClock } from './clock-types.ts';
import type { AttentionStoreOps } from './attention-types.ts';
import type { ClaimStoreOps, NoteStoreOps } from './claim-note-types.ts';
import type { LedgerStoreOps } from './ledger-types.ts';
import type {
  CheckpointRow,
  JobRow,
  RequestQuery,
  ReviewerRow,
  SessionRow,
  ThreadRow,
  ThreadStatus,
  VoteRow,
} from './rows.ts';

/** Threads, their run leases, messages and checkpoints (src/store/sql/threads.ts). */
export interface ThreadStoreOps {
  // threads and checkpoints
  /** Create the thread; false (and nothing written) when one with its id exists, created by a concurrent run or earlier. */
  insertThread(t: Omit<ThreadRow, 'leaseOwner' | 'leaseUntil'>): Promise<boolean>;
  getThread(id: string): Promise<ThreadRow | undefined>;
  updateThread(
    id: string,
    patch: Partial<
      Pick<ThreadRow, 'status' | 'messageCount' | 'abortRequested' | 'metadata' | 'agentVersion' | 'leaseOwner'>
    >,
    now: number,
  ): Promise<void>;
  /**
   * Take the thread's run lease (one loop at a time per thread). Succeeds when
   * the lease is free, expired, or already ours; creates the thread if missing.
   */
  claimThread(
    t: Omit<ThreadRow, 'leaseOwner' | 'leaseUntil'>,
    owner: string,
    leaseUntil: number,
    now: number,
  ): Promise<{ claimed: boolean; thread: ThreadRow }>;
  /** Extend the lease `owner` holds; false if it is not theirs any more. */
  renewThreadLease(id: string, owner: string, leaseUntil: number): Promise<boolean>;
  /** Give the lease back if `owner` still holds it (never someone else's). */
  releaseThread(id: string, owner: string, now: number): Promise<void>;
  /** Append messages at `fromSeq`; each is stored once, never copied into checkpoints. */
  appendMessages(threadId: string, fromSeq: number, messages: readonly unknown[]): Promise<void>;
  listMessages(threadId: string, limit?: number): Promise<unknown[]>;
  /**
   * Checkpoint-time update of a thread: set its status (and agent version),
   * count `addMessages` more messages, optionally give the lease back. Returns
   * the message count before, or undefined if the thread does not exist (or,
   * with `leaseOwner`, if that run no longer holds its lease). One statement:
   * it reads and writes the row under the row's lock.
   */
  advanceThread(
    id: string,
    change: {
      status: ThreadStatus;
      addMessages: number;
      agentVersion: string;
      releaseLease: boolean;
      leaseOwner?: string;
    },
    now: number,
  ): Promise<number | undefined>;
  /**
   * For a run holding the thread's lease: advance the thread (status, message count), append the
   * new messages after those it has, and write the checkpoint covering them. The database counts
   * the messages, so on PostgreSQL all of it travels with the transaction's next awaited statement
   * or its COMMIT; if `leaseOwner` no longer holds the lease, the transaction fails with `leaseLost()`.
   */
  writeFencedCheckpoint(
    w: {
      threadId: string;
      leaseOwner: string;
      status: ThreadStatus;
      agentVersion: string;
      releaseLease: boolean;
      messages: readonly unknown[];
      checkpoint: { id: string; schemaVersion: number; state: unknown; createdAt: number };
    },
    now: number,
    leaseLost: () => Error,
  ): Promise<void>;
  insertCheckpoint(c: CheckpointRow): Promise<void>;
  getLatestCheckpoint(threadId: string): Promise<CheckpointRow | undefined>;
  /** The latest checkpoint and the messages it covers, in one read (what a run starts from). */
  loadLatest(threadId: string): Promise<{ checkpoint: CheckpointRow | undefined; messages: unknown[] }>;
  getCheckpoint(id: string): Promise<CheckpointRow | undefined>;
}

/** Approval requests, quorum votes and trust grants (src/store/sql/requests.ts). */
export interface RequestStoreOps {
  // approval requests
  insertRequest(r: ApprovalRequest): Promise<void>;
  getRequest(id: string, opts?: { forUpdate?: boolean }): Promise<ApprovalRequest | undefined>;
  /** Move a request to `status` (next version), whatever version it is at: for the ledger's own transitions under the run's lease. */
  setRequestStatus(id: string, status: RequestStatus, now: number): Promise<void>;
  /** Write the mutable fields of a request, only if it is still at `expectedVersion`. Returns false if it moved on. */
  updateRequest(r: ApprovalRequest, expectedVersion: number): Promise<boolean>;
  /**
   * {@link updateRequest} for a request this transaction read with `forUpdate`, whose version
   * therefore cannot have moved: sent without waiting on PostgreSQL; should it change nothing
   * anyway, the transaction fails. With `stale`, for a request at a version the caller knows
   * without reading it (the one its execution claim left): the same checked write, failing the
   * transaction with `stale()` if the request moved since.
   */
  updateLockedRequest(r: ApprovalRequest, expectedVersion: number, stale?: () => Error): Promise<void>;
  listRequests(q: RequestQuery): Promise<{ items: ApprovalRequest[]; nextCursor: string | null }>;
  /** How many requests match `q`'s filters (its order, limit and cursor are ignored): one COUNT, no rows read out. */
  countRequests(q: RequestQuery): Promise<number>;
  /**
   * The requests raised for one tool call of a thread (a framework's call id), oldest first: the
   * first, and those an edit or an escalation handed over to. Call ids repeat across threads, so
   * the thread is part of the key. Planted checks, which carry the real call's id, are left out.
   */
  listRequestsForCall(threadId: string, toolCallId: string): Promise<ApprovalRequest[]>;
  /** Pending requests past their expiry, oldest first, locked for the caller where the backend can. */
  claimExpired(now: number, limit: number): Promise<ApprovalRequest[]>;
  /**
   * Record a reviewer's decision on a request. A later reject, respond or edit of the same reviewer
   * replaces theirs; an approval over an existing vote throws (no one is counted twice).
   */
  insertVote(v: VoteRow): Promise<void>;
  /** Reviewers whose standing decision on the request is an approval. */
  listVoters(requestId: string): Promise<string[]>;
  countPendingByRole(): Promise<Array<{ role: string; count: number; oldestCreatedAt: number }>>;

  // trust grants
  insertTrust(g: {
    threadId: string;
    tool: string;
    ruleId: string;
    reviewer: string;
    requestId: string;
    createdAt: number;
  }): Promise<void>;
  getTrust(
    threadId: string,
    tool: string,
    ruleId: string,
  ): Promise<{ reviewer: string; requestId: string; createdAt: number } | undefined>;
}

/** Work items: resume and notify jobs on leases (src/store/sql/jobs.ts). */
export interface JobStoreOps {
  // jobs (resume, notify, …)
  enqueueJob(j: Omit<JobRow, 'status' | 'attempts' | 'leaseOwner' | 'leaseUntil' | 'lastError'>): Promise<void>;
  /** Claim up to `limit` ready jobs of the kinds given, leased to `owner` until `leaseUntil`. */
  claimJobs(kinds: readonly string[], owner: string, now: number, leaseUntil: number, limit: number): Promise<JobRow[]>;
  completeJob(id: string, owner: string, now: number): Promise<boolean>;
  /** Put a claimed job back for later without counting the attempt (the thread was busy, nothing failed). */
  deferJob(id: string, owner: string, note: string, runAt: number, now: number): Promise<boolean>;
  /** Extend the leases of jobs `owner` holds and has not finished. */
  renewJobs(ids: readonly string[], owner: string, leaseUntil: number): Promise<number>;
  /**
   * Mark the thread's ready `resume` jobs of these requests done, unclaimed: a run that
   * resolved them itself and reached a durable stop has done what they would do.
   */
  settleResumeJobs(threadId: string, requestIds: readonly string[], now: number): Promise<void>;
  /** Give a job back: retry at `runAt`, or mark it dead. */
  failJob(id: string, owner: string, error: string, retryAt: number | null, now: number): Promise<boolean>;
  getJob(id: string): Promise<JobRow | undefined>;
  /** Jobs of a kind created since `since`, counted by status (for resume-success metrics). */
  countJobs(kind: string, since: number): Promise<Record<JobRow['status'], number>>;
  listJobs(filter: { threadId?: string; requestId?: string; kind?: string }): Promise<JobRow[]>;
}

/** The hash-chained audit log (src/store/sql/audit.ts). */
export interface AuditStoreOps {
  // audit
  /**
   * Append events to their chains (numbered and hashed under each chain's lock). Returns nothing:
   * inside a PostgreSQL transaction the append is sent with the other writes, not waited for;
   * read the events back with {@link listAudit}.
   */
  appendAudit(events: readonly AuditEventInput[], now: number): Promise<void>;
  listAudit(filter: {
    threadId?: string;
    requestId?: string;
    afterSeq?: number;
    limit?: number;
  }): Promise<AuditEvent[]>;
  /** Every audit chain's recorded head (last position and hash). */
  getAuditHeads(): Promise<ChainHead[]>;
}

/** What the oversight figures read (src/store/sql/oversight.ts): calls, finished threads, card opens. */
/** Requests by what they act on (src/store/sql/subjects.ts). */
export interface SubjectStoreOps {
  /**
   * Requests whose arguments hold `value` under `name` (an order id, a customer id): the open ones and
   * those updated since `since`, newest first, at most `limit`.
   */
  listRequestsOnSubject(name: string, value: string | number, since: number, limit: number): Promise<ApprovalRequest[]>;
}

/** A tool's input schema as an integration listed it (src/store/sql/tool-schemas.ts). */
export interface StoredToolSchema {
  name: string;
  /** Who listed it: an MCP gateway's name, say. */
  source: string;
  /** The tool's input JSON Schema, as listed. */
  schema: unknown;
  description: string | null;
  updatedAt: number;
}

/**
 * Tool schemas kept in the database, so a process that does not run the tool (the service beside an
 * MCP gateway) can check a reviewer's edit of it (src/store/sql/tool-schemas.ts).
 */
export interface ToolSchemaStoreOps {
  /** Record (or replace) the listed schemas of tools, by name. */
  putToolSchemas(schemas: readonly Omit<StoredToolSchema, 'updatedAt'>[], now: number): Promise<void>;
  getToolSchema(name: string): Promise<StoredToolSchema | null>;
}

export interface OversightStoreOps {
  /** Calls that ran without a person (auto and notify tiers), by tool and tier, first claimed in [since, until). */
  countAutoCalls(since: number, until: number): Promise<Array<{ tool: string; tier: string; count: number }>>;
  /**
   * Threads that finished (`completed`) in [since, until), roots of trees only, and how many of them
   * never waited on a person: the autonomous completions.
   */
  countFinishedThreads(since: number, until: number): Promise<{ finished: number; withoutPerson: number }>;
  /** The first time a reviewer opened a request's card; later opens change nothing. */
  recordCardOpen(requestId: string, reviewer: string, at: number): Promise<void>;
  /** Approvals recorded in [since, until), with when their reviewer first opened the card (null: never opened). */
  listApprovalTimings(
    since: number,
    until: number,
  ): Promise<
    Array<{ reviewer: string; requestId: string; planted: boolean; openedAt: number | null; decidedAt: number }>
  >;
}

/** Reviewer accounts (src/store/sql/reviewers.ts). */
export interface ReviewerStoreOps {
  // reviewers
  insertReviewer(r: ReviewerRow): Promise<void>;
  getReviewerByTokenHash(tokenHash: string): Promise<ReviewerRow | undefined>;
  getReviewer(id: string): Promise<ReviewerRow | undefined>;
  listReviewers(): Promise<ReviewerRow[]>;
  revokeReviewer(id: string): Promise<boolean>;
  /** Link a reviewer's account in a chat tool (`slack`, a Slack user id); linking again moves it. */
  linkIdentity(provider: string, externalId: string, reviewerId: string, now: number): Promise<void>;
  /** The reviewer an account in a chat tool belongs to. */
  getReviewerByIdentity(provider: string, externalId: string): Promise<ReviewerRow | undefined>;
  /**
   * Remember a message posted about a request (`ref`: the provider's handle, e.g. Slack `channel:ts`)
   * and the request version it shows (`final`: it shows the outcome); recording it again updates both.
   */
  recordPostedMessage(
    requestId: string,
    provider: string,
    ref: string,
    version: number,
    final: boolean,
    now: number,
  ): Promise<void>;
  /** Requests whose posted messages show an older version than the request's (up to `limit`). */
  listStalePostedMessages(provider: string, limit: number): Promise<string[]>;
  listPostedMessages(requestId: string, provider: string): Promise<string[]>;
}

/** Browser sessions of the web UI (src/store/sql/sessions.ts). */
export interface SessionStoreOps {
  // browser sessions (web UI)
  insertSession(s: SessionRow): Promise<void>;
  getSession(idHash: string): Promise<SessionRow | undefined>;
  /** End one session (sign-out); false when there was none. */
  deleteSession(idHash: string): Promise<boolean>;
  /** Drop sessions that expired at or before `now`; returns how many. */
  deleteExpiredSessions(now: number): Promise<number>;
}

/**
 * Operations inside one transaction. Every method either joins the caller's
 * transaction or, on {@link Store}, runs in its own.
 */
export interface StoreTx
  extends
    ThreadStoreOps,
    RequestStoreOps,
    LedgerStoreOps,
    JobStoreOps,
    AuditStoreOps,
    ReviewerStoreOps,
    SessionStoreOps,
    OversightStoreOps,
    SubjectStoreOps,
    ToolSchemaStoreOps,
    ClaimStoreOps,
    NoteStoreOps,
    AttentionStoreOps {
  /** Only in a transaction of a store with an event bus: `message` reaches the bus when, and only when, it commits. */
  publishOnCommit?(message: unknown): Promise<void>;
}

/** Named differences between backends, so callers never test `if (postgres)`. */
export interface StoreCapabilities {
  /** Several processes may share the database and lease work from it. */
  multiProcess: boolean;
  /** Row locks skip rows other transactions hold (FOR UPDATE SKIP LOCKED). */
  skipLocked: boolean;
}

/** A channel between processes sharing the database (PostgreSQL LISTEN/NOTIFY). */
export interface StoreEventBus {
  /** Send a small JSON message to every process listening (including this one). */
  publish(message: unknown): Promise<void>;
  /**
   * Receive messages; returns a function that stops listening. `onGap` is called when listening
   * resumes after the connection carrying messages was lost: messages sent meanwhile are not replayed.
   */
  subscribe(listener: (message: unknown) => void, onGap?: () => void): Promise<() => Promise<void>>;
}

/** The one storage interface the engine talks to. */
export interface Store extends StoreTx {
  /**
   * The clock the engine takes its time from. On PostgreSQL, the database's, so leases, expiry and
   * audit times mean the same in every process whatever their clocks say; on SQLite, the one process's
   * clock made steady (read once, then counted on the monotonic clock), so a step of the host's clock
   * moves no lease, deadline or job.
   */
  readonly clock?: StoreClock;
  /** Present when several processes can share the database: live events reach all of them. */
  readonly events?: StoreEventBus;
  readonly name: 'sqlite' | 'postgres';
  readonly capabilities: StoreCapabilities;
  /** Run `fn` in one transaction: all its writes commit together or not at all. */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * Run `fn`'s operations one after another on one connection, each atomic on its own as on the
   * Store, with no transaction around them. Operations `fn` starts without waiting for the one
   * before travel together (one round trip on PostgreSQL) and still run in the order started, so
   * a read started after a write sees it: a lease claim and the checkpoint behind it.
   * Only for operations that are one statement each (the `read`/`write` shapes).
   */
  batch<T>(fn: (ops: StoreTx) => Promise<T>): Promise<T>;
  /** Apply pending migrations (safe when several processes start at once). */
  migrate(): Promise<void>;
  /** Total bytes the thread occupies (messages, checkpoints), for storage accounting. */
  threadStorageBytes(threadId: string): Promise<number>;
  /**
   * Run SQL directly, bypassing every guard: for maintenance scripts and
   * tamper tests only. Placeholders are `$1`, `$2`…
   */
  unsafeQuery(sql: string, params?: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  /**
   * Work done so far, for profiling the hot path: transactions begun, statements run, on PostgreSQL
   * round trips (times the process waited for the server), and on SQLite's worker thread `hops`
   * (messages to that thread) and `syncs` (commits that synced the WAL), both for all stores on the
   * file in this process.
   */
  readonly stats: { transactions: number; statements: number; roundTrips?: number; hops?: number; syncs?: number };
  close(): Promise<void>;
}
