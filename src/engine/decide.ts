import {
  checkDecision,
  transition,
  ForbiddenError,
  InterlockError,
  newId,
  NotFoundError,
  PolicyBlockedError,
  UnknownFieldError,
  unknownFields,
  ValidationError,
  type ApprovalRequest,
  type Decision,
  type Reviewer,
} from '../core/index.ts';
import type { StoreTx, ThreadClaim, ThreadRow } from '../store/types.ts';
import type { EngineContext, EngineEvent } from './context.ts';
import { commitWithEvents } from './commit-events.ts';
import { gate } from './gate.ts';
import { resolveToolSchema } from './tool-schemas.ts';
import { openRequest } from './pause.ts';
import { applyAnswer, applyApprove, applyEdit, type EditedCall } from './decide-apply.ts';
import { idempotencyKey } from './execute.ts';
import { attemptOwner, issueClaim, keepClaimedRequest, type PreClaim } from './pre-claim.ts';

/** What a decision did. */
export interface DecisionResult {
  /** The request after the decision. */
  request: ApprovalRequest;
  /**
   * `authorized`, `rejected`, `responded`: resolved, and the thread's resume job is queued.
   * `pending`: an approval was counted toward a quorum that is not complete.
   * `superseded`: the edit raised the tier (or needs a quorum) and became `newRequest`.
   */
  outcome: 'authorized' | 'rejected' | 'responded' | 'pending' | 'superseded';
  newRequest?: ApprovalRequest;
  /** The thread lease taken in the same transaction, when {@link DecideOptions.claimThread} asked for it. */
  claim?: ThreadClaim;
  /** The request was a planted check (said once it is decided): `caught` unless it was approved. */
  plantedCheck?: { caught: boolean };
  /**
   * The execution claim taken with the decision, when {@link DecideOptions.claimExecution} asked for it
   * and the request was authorized: `request` is then `executing`, and the claim's holder runs the
   * action with {@link ExecuteOptions.claimed} (or gives the claim back unused).
   */
  execution?: PreClaim;
}

/** Options of {@link decide}. */
export interface DecideOptions {
  /**
   * Take the thread's run lease in the decision's transaction (the agent resuming
   * the thread at once): one commit instead of two. The claim runs first, before
   * the request is locked, so rows are locked in the order every run's
   * transaction uses (thread, request, audit chain) and the two cannot deadlock.
   * If the claim or the decision throws, neither is recorded. The thread's latest checkpoint is
   * read after the claim in the same round trip, for the run to start from.
   */
  claimThread?: { row: Omit<ThreadRow, 'leaseOwner' | 'leaseUntil'>; owner: string; leaseUntil: number };
  /**
   * An in-process answer to an interrupt of this thread (or of a thread in its tree), which the
   * caller holds rather than a versioned card: the decision binds to the version and action hash
   * the request has when the transaction locks it (`expectedVersion` and `actionHash` are not
   * read), and a request outside the tree is refused as an unknown interrupt. See {@link answer}.
   */
  answering?: string;
  /**
   * With `claimThread`: when the decision authorizes the request and `when` says the run that follows
   * will run its action first thing, claim the execution in the same transaction (the request goes
   * `executing`, the thread `running`): the decision and the claim are one commit. `when` sees the
   * request as authorized and the thread as claimed, with its latest checkpoint.
   */
  claimExecution?: { leaseMs: number; when: (req: ApprovalRequest, claim: ThreadClaim) => boolean };
}

/** {@link decide} for an in-process answer to an interrupt the caller holds ({@link DecideOptions.answering}). */
export function answer(
  ctx: EngineContext,
  requestId: string,
  response: Omit<Decision, 'expectedVersion' | 'actionHash'>,
  reviewer: Reviewer,
  opts: DecideOptions & { answering: string },
): Promise<DecisionResult> {
  // The version and hash are the locked request's own (answering): these are never compared.
  return decide(ctx, requestId, { ...response, expectedVersion: -1, actionHash: '' }, reviewer, opts);
}

/** The decision bound to the request as it is, when answering; refused when the request is outside the tree. */
async function asAnswer(
  tx: Pick<StoreTx, 'getThread'>,
  req: ApprovalRequest,
  decision: Decision,
  opts: DecideOptions,
): Promise<Decision> {
  const threadId = opts.answering;
  if (threadId === undefined) return decision;
  if (req.threadId !== threadId && (await tx.getThread(req.threadId))?.metadata.rootThreadId !== threadId)
    throw new NotFoundError('interrupt', req.id);
  return { ...decision, expectedVersion: req.version, actionHash: req.actionHash };
}

const actorOf = (r: Reviewer) => `reviewer:${r.id}`;

/** Validate edited args against the tool's schema, listing each bad field. */
async function validateArgs(ctx: EngineContext, tool: string, args: unknown): Promise<Record<string, unknown>> {
  const entry = await resolveToolSchema(ctx, tool);
  if (!entry) {
    throw new ValidationError(
      `Tool "${tool}" has no registered schema, so an edit of it cannot be checked; register the tool with the engine, or approve/reject instead.`,
      [{ path: 'args', message: 'tool schema unknown' }],
    );
  }
  const parsed = entry.schema.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({
      path: ['args', ...i.path.map(String)].join('.'),
      message: i.message,
    }));
    throw new ValidationError(
      `The edited arguments of "${tool}" are invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}. Fix them and submit again.`,
      issues,
    );
  }
  // A schema that strips unknown keys would drop them silently: the reviewer would approve something other than what they typed.
  const dropped = unknownFields(args, parsed.data);
  if (dropped.length) throw new UnknownFieldError(tool, dropped);
  return parsed.data;
}

/** A request's own verdict, for an edit that keeps it (an ungated step). */
function verdictOf(r: ApprovalRequest): Awaited<ReturnType<typeof gate>> {
  return {
    tier: r.tier,
    ruleId: r.ruleId,
    reason: r.reason,
    role: r.role,
    approvalsRequired: r.approvalsRequired,
    timeoutMs: r.expiresAt - r.createdAt,
    onTimeout: r.onTimeout,
    escalateTo: r.escalateTo,
    trustable: r.trustable,
    ...(r.decisions ? { decisions: r.decisions } : {}),
    ...(r.rejectReasons ? { rejectReasons: r.rejectReasons } : {}),
    matched: [r.ruleId],
  };
}

async function resolve(tx: StoreTx, req: ApprovalRequest, now: number): Promise<void> {
  await tx.enqueueJob({
    id: newId('job'),
    kind: 'resume',
    threadId: req.threadId,
    requestId: req.id,
    payload: { status: req.status },
    runAt: now,
    createdAt: now,
  });
}

/**
 * Record a reviewer's decision as a guarded write: it lands only if the request
 * is pending, not expired, at the version and action hash the reviewer saw, and
 * the reviewer may decide it. The decision, its audit event and the thread's
 * resume job commit in one transaction; of simultaneous decisions one wins.
 */
export async function decide(
  ctx: EngineContext,
  requestId: string,
  submitted: Decision,
  reviewer: Reviewer,
  opts: DecideOptions = {},
): Promise<DecisionResult> {
  let decision = submitted;
  // Edits are validated and re-gated before the transaction: the policy may read aggregates.
  const edited = decision.type === 'edit' ? await prepareEdit(ctx, requestId, decision, reviewer, opts) : undefined;
  if (edited) decision = edited.decision;
  const now = ctx.now();
  let result: DecisionResult;
  try {
    result = await commitWithEvents(
      ctx,
      async (tx): Promise<DecisionResult> => {
        const { req, claim } = await lockForDecision(tx, requestId, opts, now);
        decision = await asAnswer(tx, req, decision, opts);
        const voters = req.approvalsRequired > 1 ? await tx.listVoters(requestId) : [];
        checkDecision(req, decision, reviewer, now, voters);
        const applied =
          decision.type === 'approve'
            ? await applyApprove(tx, req, decision, reviewer, now)
            : decision.type === 'edit'
              ? await applyEdit(ctx, tx, req, edited!.call, reviewer, now)
              : await applyAnswer(tx, req, { ...decision, type: decision.type }, reviewer, now);
        const { outcome, created } = applied;
        const execution =
          outcome === 'authorized' ? await claimWithDecision(ctx, tx, applied.next, claim, opts, now) : undefined;
        const next = execution ? transition(applied.next, { type: 'start_execution' }, now) : applied.next;
        if (execution) keepClaimedRequest(execution, next);
        // Read for update above: the version cannot have moved, so the write travels with the COMMIT.
        await tx.updateLockedRequest(next, req.version);
        await tx.appendAudit(applied.audit, now);
        if (created) await openCreated(tx, created, reviewer, now);
        // A planted check has no thread waiting on it: nothing to resume.
        if ((outcome === 'authorized' || outcome === 'rejected' || outcome === 'responded') && !req.planted)
          await resolve(tx, next, now);
        const resolved = outcome !== 'pending' && outcome !== 'superseded';
        return {
          request: next,
          outcome,
          ...(created ? { newRequest: created } : {}),
          ...(claim ? { claim } : {}),
          ...(execution ? { execution } : {}),
          // The reviewer learns it was a planted check once it is decided, and whether they caught it.
          ...(req.planted && resolved ? { plantedCheck: { caught: outcome !== 'authorized' } } : {}),
        };
      },
      (r) => decidedEvents(requestId, decision, r),
    );
  } catch (err) {
    // Security refusals are recorded; the refused decision itself changed nothing.
    if (err instanceof ForbiddenError) await auditRefusal(ctx, requestId, reviewer, decision, err);
    throw err;
  }
  return result;
}

/**
 * An edit, before the transaction: who may edit and whether the request still takes edits are
 * answered before the arguments are looked at; then the arguments are validated against the tool's
 * schema and the policy re-runs on them (a graph node's question keeps its own tier).
 */
async function prepareEdit(
  ctx: EngineContext,
  requestId: string,
  submitted: Decision,
  reviewer: Reviewer,
  opts: DecideOptions,
): Promise<{ decision: Decision; call: EditedCall }> {
  const current = await ctx.store.getRequest(requestId);
  if (!current) throw new NotFoundError('approval_request', requestId);
  const decision = await asAnswer(ctx.store, current, submitted, opts);
  try {
    const voters = current.approvalsRequired > 1 ? await ctx.store.listVoters(requestId) : [];
    checkDecision(current, decision, reviewer, ctx.now(), voters);
  } catch (err) {
    if (err instanceof ForbiddenError) await auditRefusal(ctx, requestId, reviewer, decision, err);
    throw err;
  }
  const args = await validateArgs(ctx, current.tool, decision.args);
  const verdict = ctx.tools.get(current.tool)?.ungated
    ? verdictOf(current)
    : await gate(
        ctx,
        { tool: current.tool, args },
        { threadId: current.threadId, proposer: current.proposer, app: current.context },
      );
  if (verdict.tier === 'block') throw new PolicyBlockedError(current.tool, verdict.reason);
  return { decision, call: { args, verdict } };
}

/**
 * The execution claim of a request this decision authorized, written in its transaction when the
 * caller asked for it ({@link DecideOptions.claimExecution}) and holds the thread: the claim row
 * and the thread's move to `running` are sent with the decision, in the same commit. Nobody can hold
 * the key yet (the request was pending until now), so the claim is a plain insert. Undefined when
 * not asked for, or not for this request.
 */
async function claimWithDecision(
  ctx: EngineContext,
  tx: StoreTx,
  req: ApprovalRequest,
  claim: ThreadClaim | undefined,
  opts: DecideOptions,
  now: number,
): Promise<PreClaim | undefined> {
  const ask = opts.claimExecution;
  if (!ask || !claim?.claimed || req.planted || req.threadId !== claim.thread.id) return undefined;
  if (claim.thread.abortRequested || claim.thread.status === 'aborted' || claim.thread.status === 'failed')
    return undefined;
  if (!ask.when(req, claim)) return undefined;
  const pre: PreClaim = {
    key: idempotencyKey(req.id, req.actionHash),
    requestId: req.id,
    actionHash: req.actionHash,
    owner: attemptOwner(ctx.owner),
    leaseUntil: now + ask.leaseMs,
  };
  // On PostgreSQL both are sent, not waited for: they travel with the decision's other writes and its COMMIT.
  await Promise.all([
    tx.insertClaim(
      {
        key: pre.key,
        requestId: req.id,
        threadId: req.threadId,
        tool: req.tool,
        args: req.args,
        actionHash: req.actionHash,
        leaseOwner: pre.owner,
        leaseUntil: pre.leaseUntil,
        createdAt: now,
      },
      now,
    ),
    tx.updateThread(req.threadId, { status: 'running' }, now),
  ]);
  // Usable once the transaction commits: only the caller that hears of the commit holds the object.
  return issueClaim(pre, ctx.owner);
}

/**
 * Lock the request for the decision; with `claimThread`, take the thread's lease and read its latest
 * checkpoint in the same round trip. The thread row is locked before the request's, as every
 * transaction that takes both does.
 */
async function lockForDecision(
  tx: StoreTx,
  requestId: string,
  opts: DecideOptions,
  now: number,
): Promise<{ req: ApprovalRequest; claim: ThreadClaim | undefined }> {
  const claiming = opts.claimThread
    ? tx.claimThread(opts.claimThread.row, opts.claimThread.owner, opts.claimThread.leaseUntil, now)
    : undefined;
  claiming?.catch(() => undefined); // awaited below; a failure fails the transaction either way
  const locking = tx.getRequest(requestId, { forUpdate: true });
  // What the run that follows starts from, read under the lease: asked for with the two above.
  const loading = opts.claimThread ? tx.loadLatest(opts.claimThread.row.id) : undefined;
  loading?.catch(() => undefined);
  const req = await locking;
  const claim: ThreadClaim | undefined = claiming && { ...(await claiming), latest: await loading };
  if (!req) throw new NotFoundError(opts.answering === undefined ? 'approval_request' : 'interrupt', requestId);
  return { req, claim };
}

/** A request an edit opened, with the editor's approval when it counts toward a quorum. */
async function openCreated(tx: StoreTx, created: ApprovalRequest, reviewer: Reviewer, now: number): Promise<void> {
  await openRequest(tx, created);
  if (created.approvalsReceived > 0)
    await tx.insertVote({ requestId: created.id, reviewer: reviewer.id, type: 'approve', version: 1, createdAt: now });
}

/** What a decision tells live screens: the request's move, and the request an edit opened. */
function decidedEvents(requestId: string, decision: Decision, result: DecisionResult): EngineEvent[] {
  const n = result.newRequest;
  return [
    {
      type: 'approval.decided',
      requestId,
      threadId: result.request.threadId,
      decision: decision.type,
      status: result.request.status,
    },
    ...(n
      ? [{ type: 'approval.created' as const, requestId: n.id, threadId: n.threadId, tool: n.tool, role: n.role }]
      : []),
    // The execution claimed with the decision moved its thread to running.
    ...(result.execution
      ? [{ type: 'thread.status' as const, threadId: result.request.threadId, status: 'running' }]
      : []),
  ];
}

async function auditRefusal(
  ctx: EngineContext,
  requestId: string,
  reviewer: Reviewer,
  decision: Decision,
  err: InterlockError,
): Promise<void> {
  try {
    const req = await ctx.store.getRequest(requestId);
    await ctx.store.transaction((tx) =>
      tx.appendAudit(
        [
          {
            type: 'refused',
            actor: actorOf(reviewer),
            threadId: req?.threadId ?? null,
            requestId,
            payload: { decision: decision.type, code: err.code },
          },
        ],
        ctx.now(),
      ),
    );
  } catch {
    // The caller must still learn why the decision was refused; a store fault here is not that answer.
  }
}
