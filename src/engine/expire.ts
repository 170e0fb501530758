import { newId, transition, type ApprovalRequest, type AuditEventInput } from '../core/index.ts';
import type { StoreTx } from '../store/types.ts';
import type { EngineContext, EngineEvent } from './context.ts';
import { commitWithEvents } from './commit-events.ts';
import { cancelOpenRequests } from './end-thread.ts';
import { newRequest, openRequest } from './pause.ts';

const SYSTEM = 'system:sweeper';

/**
 * Apply the documented timeout default to every pending request past its
 * expiry, in batches of `batch` per transaction:
 * - `reject` (the default): status `expired`; the agent resumes with a rejection.
 * - `approve`: status `authorized`; the agent resumes and the action runs once.
 * - `escalate`: superseded by a new request for the rule's `escalateTo` role.
 * - `abort`: status `expired` and the thread is aborted.
 * Safe with several sweepers: rows are claimed with SKIP LOCKED (PostgreSQL) or
 * under the single writer lock (SQLite), and each update is version-guarded.
 */
export async function expireDue(
  ctx: EngineContext,
  opts: { batch?: number; max?: number } = {},
): Promise<ApprovalRequest[]> {
  const batch = opts.batch ?? 500;
  const max = opts.max ?? Number.POSITIVE_INFINITY;
  const done: ApprovalRequest[] = [];
  while (done.length < max) {
    const now = ctx.now();
    const expired = await commitWithEvents(
      ctx,
      async (tx) => {
        const due = await tx.claimExpired(now, Math.min(batch, max - done.length));
        const out: Expired[] = [];
        const audit: AuditEventInput[] = [];
        for (const req of due) {
          const e = await expireOne(ctx, tx, req, audit, now);
          if (e) out.push(e);
        }
        await tx.appendAudit(audit, now);
        return out;
      },
      (out) => out.flatMap(expiredEvents),
    );
    for (const { req } of expired) done.push(req);
    if (expired.length < batch) break;
  }
  return done;
}

/** What an expiry tells live screens: the default applied, and the request an escalation opened. */
function expiredEvents({ req, created }: Expired): EngineEvent[] {
  return [
    { type: 'approval.expired', requestId: req.id, threadId: req.threadId, applied: req.onTimeout },
    ...(created
      ? [
          {
            type: 'approval.created' as const,
            requestId: created.id,
            threadId: created.threadId,
            tool: created.tool,
            role: created.role,
          },
        ]
      : []),
  ];
}

/** A request the sweep expired, as it now is, and the request that replaced it when it escalated. */
interface Expired {
  req: ApprovalRequest;
  created?: ApprovalRequest;
}

/**
 * Apply one request's timeout default in the sweep's transaction. Its audit events go to `audit`
 * (appended by the caller after the batch); undefined when another sweeper changed it first.
 */
async function expireOne(
  ctx: EngineContext,
  tx: StoreTx,
  req: ApprovalRequest,
  audit: AuditEventInput[],
  now: number,
): Promise<Expired | undefined> {
  const applied = req.onTimeout;
  let next: ApprovalRequest;
  const base = { actor: SYSTEM, threadId: req.threadId, requestId: req.id };
  let created: ApprovalRequest | undefined;
  if (applied === 'escalate' && req.escalateTo) {
    created = escalation(ctx, req, req.escalateTo, now);
    next = transition(req, { type: 'supersede', by: SYSTEM, newRequestId: created.id, cause: 'timeout' }, now);
  } else next = transition(req, { type: 'expire', by: SYSTEM, applied }, now);
  if (!(await tx.updateRequest(next, req.version))) return undefined;
  audit.push({ ...base, type: 'expired', payload: { applied, expiresAt: req.expiresAt, status: next.status } });
  if (created) {
    audit.push({
      ...base,
      type: 'escalated',
      payload: { from: req.tier, to: 'escalate', newRequestId: created.id, reason: 'timeout' },
    });
    await openRequest(tx, created);
  } else if (req.planted) {
    // A planted check has no thread to resume or abort: its outcome is only counted.
  } else if (applied === 'abort') {
    await abortThread(tx, req, audit, now);
  } else {
    await tx.enqueueJob({
      id: newId('job'),
      kind: 'resume',
      threadId: req.threadId,
      requestId: req.id,
      payload: { status: next.status },
      runAt: now,
      createdAt: now,
    });
  }
  return created ? { req: next, created } : { req: next };
}

/** The request that replaces a timed-out one for the rule's `escalateTo` role. */
function escalation(
  ctx: EngineContext,
  req: ApprovalRequest,
  e: NonNullable<ApprovalRequest['escalateTo']>,
  now: number,
): ApprovalRequest {
  const created = newRequest(ctx, {
    threadId: req.threadId,
    checkpointId: req.checkpointId,
    proposer: req.proposer,
    item: {
      call: { tool: req.tool, args: req.args },
      ...(req.toolCallId ? { toolCallId: req.toolCallId } : {}),
      verdict: {
        tier: 'escalate',
        ruleId: req.ruleId,
        reason: `escalated after timeout: ${req.reason}`,
        role: e.role,
        approvalsRequired: e.approvals,
        timeoutMs: e.timeoutMs,
        onTimeout: 'reject',
        escalateTo: null,
        trustable: false,
        ...(req.decisions ? { decisions: req.decisions } : {}),
        ...(req.rejectReasons ? { rejectReasons: req.rejectReasons } : {}),
        matched: [req.ruleId],
      },
      evidence: req.evidence,
      app: req.context,
    },
    now,
    parentId: req.id,
  });
  if (req.planted) created.planted = true; // still a planted check, escalated like a real one
  return created;
}

/** The `abort` default: the thread is aborted, and its other open requests are cancelled with it. */
async function abortThread(tx: StoreTx, req: ApprovalRequest, audit: AuditEventInput[], now: number): Promise<void> {
  await tx.updateThread(req.threadId, { status: 'aborted', abortRequested: true }, now);
  audit.push({
    actor: SYSTEM,
    threadId: req.threadId,
    requestId: req.id,
    type: 'aborted',
    payload: { reason: 'approval timed out; the rule aborts the thread' },
  });
  // The thread's other open requests go with it: it will not resume to run them. The events so far
  // go first in the same append, so the chain reads expired, aborted, then the cancellations, and the
  // chain is locked after the requests (see cancelOpenRequests).
  await cancelOpenRequests(
    tx,
    req.threadId,
    SYSTEM,
    'the thread was aborted: an approval timed out and its rule aborts the thread',
    now,
    audit.splice(0),
  );
}
