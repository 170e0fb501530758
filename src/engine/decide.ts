import {
  actionHash,
  checkDecision,
  ForbiddenError,
  InterlockError,
  newId,
  NotFoundError,
  PolicyBlockedError,
  tierRank,
  UnknownFieldError,
  unknownFields,
  ValidationError,
  type ApprovalRequest,
  type AuditEventInput,
  type Decision,
  type Reviewer,
  transition,
} from '../core/index.ts';
import type { StoreTx, ThreadClaim, ThreadRow } from '../store/types.ts';
import type { EngineContext } from './context.ts';
import { gate } from './gate.ts';
import { newRequest, openRequest } from './pause.ts';

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
function validateArgs(ctx: EngineContext, tool: string, args: unknown): Record<string, unknown> {
  const entry = ctx.tools.get(tool);
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
  let edited: { args: Record<string, unknown>; verdict: Awaited<ReturnType<typeof gate>> } | undefined;
  if (decision.type === 'edit') {
    const current = await ctx.store.getRequest(requestId);
    if (!current) throw new NotFoundError('approval_request', requestId);
    decision = await asAnswer(ctx.store, current, decision, opts);
    // Who may edit, and whether the request still takes edits, is answered before the args are looked at.
    try {
      checkDecision(
        current,
        decision,
        reviewer,
        ctx.now(),
        current.approvalsRequired > 1 ? await ctx.store.listVoters(requestId) : [],
      );
    } catch (err) {
      if (err instanceof ForbiddenError) await auditRefusal(ctx, requestId, reviewer, decision, err);
      throw err;
    }
    const args = validateArgs(ctx, current.tool, decision.args);
    // A graph node's question has no policy rule to re-run: the edited input stands at the request's own tier.
    const verdict = ctx.tools.get(current.tool)?.ungated
      ? verdictOf(current)
      : await gate(
          ctx,
          { tool: current.tool, args },
          { threadId: current.threadId, proposer: current.proposer, app: current.context },
        );
    if (verdict.tier === 'block') throw new PolicyBlockedError(current.tool, verdict.reason);
    edited = { args, verdict };
  }
  const now = ctx.now();
  let result: DecisionResult;
  try {
    result = await ctx.store.transaction(async (tx) => {
      // The lease and the request are asked for together (one round trip), in this order: the thread
      // row is locked before the request's, as every transaction that takes both does.
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
      decision = await asAnswer(tx, req, decision, opts);
      const voters = req.approvalsRequired > 1 ? await tx.listVoters(requestId) : [];
      checkDecision(req, decision, reviewer, now, voters);
      const audit: AuditEventInput[] = [];
      const base = { actor: actorOf(reviewer), threadId: req.threadId, requestId: req.id };
      // The next row comes from core's state machine (transition), the one place request changes are defined.
      let next: ApprovalRequest;
      let outcome: DecisionResult['outcome'];
      let created: ApprovalRequest | undefined;

      switch (decision.type) {
        case 'approve': {
          await tx.insertVote({
            requestId: req.id,
            reviewer: reviewer.id,
            type: 'approve',
            version: req.version,
            createdAt: now,
          });
          next = transition(req, { type: 'approve', by: reviewer.id, ...(decision.trust ? { trust: true } : {}) }, now);
          const done = next.status === 'authorized';
          audit.push({
            ...base,
            type: 'approved',
            payload: {
              version: req.version,
              actionHash: req.actionHash,
              approvals: next.approvalsReceived,
              required: req.approvalsRequired,
              trust: decision.trust === true,
            },
          });
          if (done) {
            // A planted check grants nothing: trust on it would lower the tier of real calls.
            if (decision.trust && !req.planted) {
              await tx.insertTrust({
                threadId: req.threadId,
                tool: req.tool,
                ruleId: req.ruleId,
                reviewer: reviewer.id,
                requestId: req.id,
                createdAt: now,
              });
              audit.push({
                ...base,
                type: 'trusted',
                payload: { tool: req.tool, ruleId: req.ruleId, scope: 'thread' },
              });
            }
          }
          outcome = done ? 'authorized' : 'pending';
          break;
        }
        case 'reject':
        case 'respond': {
          next = transition(
            req,
            {
              type: decision.type,
              by: reviewer.id,
              ...(decision.message === undefined ? {} : { message: decision.message }),
            },
            now,
          );
          await tx.insertVote({
            requestId: req.id,
            reviewer: reviewer.id,
            type: decision.type,
            version: req.version,
            createdAt: now,
          });
          audit.push({
            ...base,
            type: decision.type === 'reject' ? 'rejected' : 'responded',
            payload: { version: req.version, message: decision.message ?? null },
          });
          outcome = decision.type === 'reject' ? 'rejected' : 'responded';
          break;
        }
        case 'edit': {
          const { args, verdict } = edited!;
          const hash = actionHash(req.tool, args);
          // An edit can keep or raise the tier, never lower it.
          // A stricter rule at the same tier (more approvals, another role) also makes it a new request.
          const rank = tierRank(verdict.tier) - tierRank(req.tier);
          const raised =
            rank > 0 ||
            (rank === 0 &&
              (verdict.approvalsRequired > req.approvalsRequired ||
                (verdict.role !== null && verdict.role !== req.role)));
          audit.push({
            ...base,
            type: 'edited',
            payload: {
              version: req.version,
              originalArgs: req.args,
              args,
              actionHash: hash,
              newTier: raised ? verdict.tier : req.tier,
            },
          });
          if (raised || req.approvalsRequired > 1) {
            // A new proposal: at the raised tier, or (quorum) needing fresh approvals of the edited action.
            const v = raised
              ? verdict
              : {
                  ...verdict,
                  tier: req.tier,
                  ruleId: req.ruleId,
                  reason: req.reason,
                  role: req.role,
                  approvalsRequired: req.approvalsRequired,
                  timeoutMs: req.expiresAt - req.createdAt,
                  onTimeout: req.onTimeout,
                  escalateTo: req.escalateTo,
                  trustable: req.trustable,
                };
            // The editor proposed what they wrote: they may not also be the one who approves it.
            created = newRequest(ctx, {
              threadId: req.threadId,
              checkpointId: req.checkpointId,
              proposer: reviewer.id,
              item: {
                call: { tool: req.tool, args },
                ...(req.toolCallId ? { toolCallId: req.toolCallId } : {}),
                verdict: v,
                evidence: req.evidence,
                app: req.context,
              },
              now,
              parentId: req.id,
            });
            if (req.planted) created.planted = true;
            next = transition(
              req,
              { type: 'supersede', by: reviewer.id, newRequestId: created.id, cause: 'edit', originalArgs: req.args },
              now,
            );
            if (!raised) {
              // The editor has approved the edited action; it counts toward the new quorum.
              created.approvalsReceived = 1;
            }
            audit.push({
              ...base,
              type: 'escalated',
              payload: {
                from: req.tier,
                to: created.tier,
                newRequestId: created.id,
                reason: raised ? verdict.reason : 'edited action needs a fresh quorum',
              },
            });
            outcome = 'superseded';
          } else {
            // The editor approved what they wrote: it counts, so the card does not read "0/1 approvals" once it ran.
            next = transition(req, { type: 'edit', by: reviewer.id, args, actionHash: hash }, now);
            outcome = 'authorized';
          }
          await tx.insertVote({
            requestId: req.id,
            reviewer: reviewer.id,
            type: 'edit',
            version: req.version,
            createdAt: now,
          });
          break;
        }
      }
      // Read for update above: the version cannot have moved, so the write travels with the COMMIT.
      await tx.updateLockedRequest(next, req.version);
      await tx.appendAudit(audit, now);
      if (created) {
        await openRequest(tx, created);
        if (created.approvalsReceived > 0)
          await tx.insertVote({
            requestId: created.id,
            reviewer: reviewer.id,
            type: 'approve',
            version: 1,
            createdAt: now,
          });
      }
      // A planted check has no thread waiting on it: nothing to resume.
      if ((outcome === 'authorized' || outcome === 'rejected' || outcome === 'responded') && !req.planted)
        await resolve(tx, next, now);
      const resolved = outcome !== 'pending' && outcome !== 'superseded';
      return {
        request: next,
        outcome,
        ...(created ? { newRequest: created } : {}),
        ...(claim ? { claim } : {}),
        // The reviewer learns it was a planted check once it is decided, and whether they caught it.
        ...(req.planted && resolved ? { plantedCheck: { caught: outcome !== 'authorized' } } : {}),
      };
    });
  } catch (err) {
    // Security refusals are recorded; the refused decision itself changed nothing.
    if (err instanceof ForbiddenError) await auditRefusal(ctx, requestId, reviewer, decision, err);
    throw err;
  }
  ctx.emit({
    type: 'approval.decided',
    requestId,
    threadId: result.request.threadId,
    decision: decision.type,
    status: result.request.status,
  });
  if (result.newRequest) {
    const n = result.newRequest;
    ctx.emit({ type: 'approval.created', requestId: n.id, threadId: n.threadId, tool: n.tool, role: n.role });
  }
  return result;
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
