import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  ConfigError,
  NotFoundError,
  type ApprovalRequest,
  type ChainVerification,
  type Decision,
  type Policy,
  type PolicyConfig,
  type Reviewer,
  type ToolCall,
} from '../core/index.ts';
import { definePolicy } from '../core/index.ts';
import type { ClockSkew, RequestQuery, Store } from '../store/types.ts';
import type { EngineContext, EngineEvent, ToolSchemaEntry } from './context.ts';
import { createEventHub } from './event-hub.ts';
import {
  auditOps,
  directOps,
  jobOps,
  threadOps,
  type AuditOps,
  type JobOps,
  type RequestReads,
  type ReviewerOps,
  type SessionOps,
  type ThreadOps,
} from './state-ops.ts';
import { gate, type GateContext, type GateVerdict } from './gate.ts';
import {
  checkpoint,
  pause,
  type CheckpointInput,
  type CheckpointOptions,
  type PauseInput,
  type PauseResult,
  type ThreadRef,
} from './pause.ts';
import { answer, decide, type DecideOptions, type DecisionResult } from './decide.ts';
import { expireDue } from './expire.ts';
import { keepRead, releaseClaim, type PreClaim } from './pre-claim.ts';
import { executeOnce, type ExecuteOptions, type ExecutionInput, type ExecutionOutcome } from './execute.ts';
import { explain, verifyAudit, type RequestStory, type VerifyOptions } from './audit.ts';
import { rollup, type Rollup } from './rollup.ts';
import { askedHash, followRequest, type CallOutcome } from './outcome.ts';
import { currentFacts, relatedRequests, type FactsView, type SubjectView } from './related.ts';
import { publishedInputSchema, publishToolSchemas, type PublishedTool } from './tool-schemas.ts';
import type { ThreadStatus } from '../store/types.ts';
import type { AuditEventInput } from '../core/index.ts';
import { claimOps, claimTimeout, type ClaimOps } from './claims.ts';
import { noteOps, type NoteOps } from './notes.ts';
import { attentionOps, type AttentionOps } from './attention.ts';

/** Options of {@link createInterlock}. */
export interface InterlockOptions {
  /** A migrated store (see `openStore`, `createSqliteStore`, `createPostgresStore`). */
  store: Store;
  /** The policy, as config or already built with `definePolicy`. */
  policy: PolicyConfig | Policy;
  /** Argument schemas of the tools, so edits can be validated. */
  tools?: Record<string, ToolSchemaEntry>;
  /**
   * Clock in epoch ms; tests pass a fake one. Default: the store's clock when it has one (PostgreSQL:
   * the database's, so every process judges leases and expiry by one clock), else `Date.now`.
   */
  now?: () => number;
  /** Uniform random numbers in [0, 1) deciding planted checks (default `Math.random`); tests pass a fixed sequence. */
  random?: () => number;
  /** Role for triage-raised requests without one (default `supervisor`). */
  fallbackRole?: string;
  /** Lease owner name of this process (default host:pid:random). */
  owner?: string;
  /**
   * Default lease of threads' runs, execution claims and workers' jobs, in ms
   * (default 60 000): how soon another process takes over the work of one
   * that died. Leases are renewed every third of it while work goes on.
   */
  leaseMs?: number;
  /** How long a reviewer's claim on a request lasts unless renewed, in ms (default 10 minutes; see {@link Interlock.claims}). */
  claimMs?: number;
}

/** Default of {@link InterlockOptions.leaseMs}. */
export const DEFAULT_LEASE_MS = 60_000;

/**
 * The engine: gate, pause, decide, expire, execute once, audit — and the one door
 * to state for every layer above it (docs/architecture.md). It exposes no store
 * and no transaction: reads and writes go through the operations below.
 */
export interface Interlock {
  readonly policy: Policy;
  /** Threads: reads, the run lease, start and abort (engine/state-ops.ts). */
  readonly threads: ThreadOps;
  /** Work items (resume, notify): claim, renew, settle. */
  readonly jobs: JobOps;
  /** The audit log: reads, and `record` for events that are not a side product of an engine step. */
  readonly audit: AuditOps;
  /** Reviewer accounts. */
  readonly reviewers: ReviewerOps;
  /** Browser sessions of the web UI. */
  readonly sessions: SessionOps;
  /** Request reads beyond get/list: quorum voters, pending counts by role. */
  readonly requests: RequestReads;
  /** Who is looking at a request: advisory, timed claims, each change a live event. */
  readonly claims: ClaimOps;
  /** Reviewers' internal notes on requests (audited; never sent to the agent). */
  readonly notes: NoteOps;
  /** Approved actions that failed when they ran: the "needs attention" list and its count. */
  readonly attention: AttentionOps;
  /** The engine's clock (epoch ms): the injected `now`, else the store's shared clock (the database's on PostgreSQL), else the process's. */
  now(): number;
  /** How far this process's clock is from the database's, when the store keeps one clock for several processes (PostgreSQL); else null. */
  clockSkew(): ClockSkew | null;
  /** Lease owner name of this process. */
  readonly owner: string;
  /** How long leases last unless renewed (thread runs, execution claims, jobs). */
  readonly leaseMs: number;
  /** Which backend holds the state: `sqlite` or `postgres`. */
  readonly storeName: Store['name'];
  /** The registered argument schema of a tool, if any. */
  toolSchema(tool: string): ToolSchemaEntry | undefined;
  /** Open and recent requests on the subjects a request's tool declares (its order, its customer), with their sums. */
  relatedRequests(requestId: string, limit?: number): Promise<SubjectView[]>;
  /** The facts about a request's call now (its tool's `facts` read again), against those recorded when it opened. */
  currentFacts(requestId: string): Promise<FactsView>;
  /**
   * Publish a live event (after a commit) to this process's and other processes' listeners.
   * (`events.missed` is the event bus's own, told to one process's listeners; it is not published.)
   */
  emit(e: Exclude<EngineEvent, { type: 'events.missed' }>): void;

  /** Evaluate the policy for a call. */
  gate(call: ToolCall, ctx?: GateContext): Promise<GateVerdict>;
  /** Checkpoint + approval requests + audit + notification jobs, in one transaction. */
  pause(input: PauseInput): Promise<PauseResult>;
  /** Save a checkpoint and thread status without pausing. */
  checkpoint(
    thread: ThreadRef,
    cp: CheckpointInput | undefined,
    status: ThreadStatus,
    audit?: AuditEventInput[],
    opts?: CheckpointOptions,
  ): Promise<string | null>;
  /** Register tool argument schemas, so edits of their calls can be validated. */
  registerTools(tools: Record<string, ToolSchemaEntry>): void;
  /**
   * Record tools' input JSON Schemas in the database (by `source`, e.g. an MCP gateway's name), so
   * another process on it — the service where reviewers edit — can show and check edits of tools
   * that run elsewhere. A later listing of the same tool replaces it.
   */
  publishToolSchemas(source: string, tools: readonly PublishedTool[]): Promise<void>;
  /**
   * The input JSON Schema of a tool registered nowhere in this process but published to the database
   * by an integration ({@link Interlock.publishToolSchemas}); null when none was.
   */
  publishedInputSchema(tool: string): Promise<Record<string, unknown> | null>;
  /** A reviewer's guarded decision. */
  decide(requestId: string, decision: Decision, reviewer: Reviewer, opts?: DecideOptions): Promise<DecisionResult>;
  /**
   * An in-process answer to an interrupt of thread `opts.answering` (or of its tree): a decision
   * bound to the request as it is when locked, with the same checks and audit as {@link decide}.
   */
  answer(
    requestId: string,
    response: Omit<Decision, 'expectedVersion' | 'actionHash'>,
    reviewer: Reviewer,
    opts: DecideOptions & { answering: string },
  ): Promise<DecisionResult>;
  /** Apply timeout defaults to expired requests. */
  expireDue(opts?: { batch?: number; max?: number }): Promise<ApprovalRequest[]>;
  /** Run a side effect at most once under a key. */
  executeOnce<T>(
    input: ExecutionInput,
    fn: (run: { idempotencyKey: string; attempt: number }) => Promise<T>,
    opts?: ExecuteOptions,
  ): Promise<ExecutionOutcome<T>>;
  /**
   * Give back an execution claim taken with a decision ({@link DecideOptions.claimExecution}) that
   * ran nothing: the request is authorized again. False when the claim is no longer this process's.
   */
  releaseClaim(claim: PreClaim): Promise<boolean>;
  /**
   * The request, or undefined. With `forExecution`, for a call about to run: the engine keeps its own copy of an
   * `authorized` request as read, and `executeOnce` handed this very object (`{ request }`) writes the
   * claim from that copy without reading the request again.
   */
  getRequest(id: string, opts?: { forExecution?: boolean }): Promise<ApprovalRequest | undefined>;
  /** The request, or a NotFoundError. */
  getRequestOrThrow(id: string): Promise<ApprovalRequest>;
  listRequests(q: RequestQuery): Promise<{ items: ApprovalRequest[]; nextCursor: string | null }>;
  /** How many requests match `q`'s filters (the queue's count, without reading the requests). */
  countRequests(q: RequestQuery): Promise<number>;
  /**
   * Where a framework's tool call stands: the request raised for it (by thread and call id, and with
   * `actionHash` the one raised for exactly those arguments), followed to the one that stands;
   * undefined if the call never paused. Adapters use it to find the request
   * again when a framework re-evaluates approval for the same call.
   */
  callOutcome(threadId: string, toolCallId: string, actionHash?: string): Promise<CallOutcome | undefined>;
  /**
   * Where the call a request was opened for stands: the request followed to the one that stands
   * (an edit that raised the tier, a timeout escalation). The key an integration keeps for a paused
   * call — a framework's call id may repeat within a step or across turns, a request id never does.
   */
  requestOutcome(requestId: string): Promise<CallOutcome>;
  /** What was proposed, who decided, what ran. */
  explain(requestId: string): Promise<RequestStory>;
  verifyAudit(opts?: VerifyOptions): Promise<ChainVerification>;
  /** Per-tool interrupts, decisions, time to decision and resume success for requests created since `since`. */
  /** A reviewer opened a request's card: the first time counts, for their pace (`rollup` with `oversight`). */
  cardOpened(requestId: string, reviewerId: string): Promise<void>;
  /**
   * The oversight figures for requests created in [since, until) (docs/metrics.md). `roles`: a reviewer's
   * view; `oversight`: add planted-check yield and reviewers' pace (operators only); `fastSeconds`: the
   * pace threshold (default 10).
   */
  rollup(
    since: number,
    until?: number,
    opts?: { roles?: readonly string[]; oversight?: boolean; fastSeconds?: number },
  ): Promise<Rollup>;
  /** Subscribe to events emitted after commits; returns an unsubscribe function. */
  on(listener: (e: EngineEvent) => void): () => void;
}

/**
 * Create the engine over a migrated store.
 * @example
 * const store = await openStore();               // ./data/interlock.db
 * const il = createInterlock({ store, policy: { tools: {
 *   issue_refund: [
 *     { id: 'small', tier: 'auto', reason: 'small refund' },
 *     { id: 'large', tier: 'approve', role: 'supervisor', reason: 'over $500',
 *       when: ({ args }) => Number(args.amount) > 500 },
 *   ] } } });
 */
export function createInterlock(options: InterlockOptions): Interlock {
  if (!options || typeof options !== 'object')
    throw new ConfigError('createInterlock needs options: { store, policy }.');
  if (!options.store)
    throw new ConfigError('createInterlock requires "store": pass await openStore() or createSqliteStore().');
  if (!options.policy)
    throw new ConfigError(
      'createInterlock requires "policy": { tools: { toolName: [rules] } }. A tool with no policy is blocked.',
    );
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isInteger(leaseMs) || leaseMs < 100) {
    throw new ConfigError(
      `createInterlock: "leaseMs" must be a whole number of milliseconds, at least 100 (e.g. 60000), not ${String(options.leaseMs)}.`,
    );
  }
  const claimMs = claimTimeout(options.claimMs);
  const policy: Policy = 'evaluate' in options.policy ? options.policy : definePolicy(options.policy);
  const tools = new Map(Object.entries(options.tools ?? {}));
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const hub = createEventHub(options.store.events, owner);
  const ctx: EngineContext = {
    store: options.store,
    policy,
    tools,
    now: engineClock(options),
    fallbackRole: options.fallbackRole ?? 'supervisor',
    owner,
    leaseMs,
    emit: hub.emit,
    events: hub,
    random: options.random ?? Math.random,
  };
  const direct = directOps(options.store);
  return {
    policy,
    threads: threadOps(ctx),
    jobs: jobOps(ctx),
    audit: auditOps(ctx),
    ...direct,
    claims: claimOps(ctx, claimMs),
    notes: noteOps(ctx),
    attention: attentionOps(ctx),
    now: () => ctx.now(),
    clockSkew: () => options.store.clock?.skew() ?? null,
    owner,
    leaseMs: ctx.leaseMs,
    storeName: options.store.name,
    toolSchema: (tool) => tools.get(tool),
    relatedRequests: async (id, limit) => relatedRequests(ctx, await requestOrThrow(ctx, id), limit),
    currentFacts: async (id) => currentFacts(ctx, await requestOrThrow(ctx, id)),
    emit: hub.emit,
    gate: (call, g) => gate(ctx, call, g),
    pause: (input) => pause(ctx, input),
    checkpoint: (thread, cp, status, audit, o) => checkpoint(ctx, thread, cp, status, audit, o),
    registerTools(entries) {
      for (const [name, entry] of Object.entries(entries)) tools.set(name, entry);
    },
    publishToolSchemas: (source, list) => publishToolSchemas(ctx, source, list),
    publishedInputSchema: (tool) => publishedInputSchema(ctx, tool),
    decide: (id, d, r, o) => decide(ctx, id, d, r, o),
    answer: (id, d, r, o) => answer(ctx, id, d, r, o),
    expireDue: (o) => expireDue(ctx, o),
    executeOnce: (input, fn, o) => executeOnce(ctx, input, fn, o),
    releaseClaim: (claim) => releaseClaim(ctx, claim),
    async getRequest(id, opts) {
      const r = await ctx.store.getRequest(id);
      return opts?.forExecution ? kept(r) : r;
    },
    async getRequestOrThrow(id) {
      const r = await ctx.store.getRequest(id);
      if (!r) throw new NotFoundError('approval_request', id);
      return r;
    },
    listRequests: (q) => ctx.store.listRequests(q),
    countRequests: (q) => ctx.store.countRequests(q),
    callOutcome: (threadId, toolCallId, hash) => callOutcome(ctx, threadId, toolCallId, hash),
    requestOutcome: async (id) => keptOutcome(await followRequest((r) => ctx.store.getRequest(r), id)),
    explain: (id) => explain(ctx, id),
    verifyAudit: (o) => verifyAudit(ctx, o),
    rollup: (since, until, o) => rollup(ctx, since, until, o),
    cardOpened: (requestId, reviewerId) => ctx.store.recordCardOpen(requestId, reviewerId, ctx.now()),
    on: hub.on,
  };
}

/**
 * The injected clock, else the store's: one clock for all processes sharing the database, so a
 * skewed host neither takes over live work nor expires anything early.
 */
function engineClock(options: InterlockOptions): () => number {
  const clock = options.store.clock;
  return options.now ?? (clock ? () => clock.now() : Date.now);
}

/** What became of a framework's call (Interlock.callOutcome). */
async function callOutcome(
  ctx: EngineContext,
  threadId: string,
  toolCallId: string,
  hash: string | undefined,
): Promise<CallOutcome | undefined> {
  // One read: the call's requests (the first and those it handed over to) all carry its call id.
  const chain = await ctx.store.listRequestsForCall(threadId, toolCallId);
  const byId = new Map(chain.map((r) => [r.id, r]));
  // The request first opened for a call has no parent among them; with the call's hash, the one
  // opened for exactly this call (another call under the same id has its own).
  const roots = chain.filter((r) => !r.parentId || !byId.has(r.parentId));
  const root = hash === undefined ? roots[0] : roots.findLast((r) => askedHash(r) === hash);
  if (!root) return undefined;
  return keptOutcome(await followRequest(async (id) => byId.get(id) ?? ctx.store.getRequest(id), root.id));
}

/**
 * A request as read from the store: the claim of an authorized request's call can be written from it
 * without reading it again (the engine keeps its own copy; src/engine/pre-claim.ts).
 */
function kept<T extends ApprovalRequest | undefined>(r: T): T {
  if (r) keepRead(r);
  return r;
}

/** A call's outcome as read from the store: see {@link kept}. */
function keptOutcome(o: CallOutcome): CallOutcome {
  if (o.state === 'approved') keepRead(o.request);
  return o;
}

async function requestOrThrow(ctx: EngineContext, id: string): Promise<ApprovalRequest> {
  const r = await ctx.store.getRequest(id);
  if (!r) throw new NotFoundError('approval_request', id);
  return r;
}
