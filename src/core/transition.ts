import type { ApprovalRequest, RequestStatus, Resolution } from './approval.ts';
import { InterlockUsageError } from './errors.ts';
import type { TimeoutDecision } from './tiers.ts';

/**
 * The request state machine, as one pure function. Every writer of a request row
 * (decide, expire, execute, cancel) builds the next row with {@link transition},
 * so which change is legal from which state lives in one place and is tested
 * without a database.
 *
 * ```
 * pending ──approve (quorum met) / edit in place / timeout approve──▶ authorized ──start──▶ executing ──finish──▶ executed | failed
 *    │  ╰─approve (quorum not met): stays pending, one more approval
 *    ├─reject / respond ─────▶ rejected / responded
 *    ├─edit to a new request / timeout escalation ─▶ superseded
 *    ├─timeout (reject default) ─▶ expired
 *    └─cancel ───────────────▶ cancelled   (also from authorized: the thread can no longer run it)
 * ```
 */
export type RequestEvent =
  | { type: 'approve'; by: string; trust?: boolean }
  | { type: 'reject' | 'respond'; by: string; message?: string }
  /** An edit the same approval covers: the request is authorized with the new arguments. */
  | { type: 'edit'; by: string; args: Record<string, unknown>; actionHash: string }
  /** An edit or timeout escalation that needs a new request: this one hands over to it. */
  | {
      type: 'supersede';
      by: string;
      newRequestId: string;
      cause: 'edit' | 'timeout';
      originalArgs?: Record<string, unknown>;
    }
  /**
   * The request timed out; `applied` is the documented default that now applies (`approve`
   * authorizes; the others expire it — an `escalate` with a target is a `supersede` instead).
   */
  | { type: 'expire'; by: string; applied: TimeoutDecision }
  /** The thread can no longer resume (failed, aborted, replaced): nobody may decide or run this. */
  | { type: 'cancel' }
  | { type: 'start_execution' }
  | { type: 'finish_execution'; ok: boolean }
  /**
   * A claim taken with the decision ran nothing and was given back (the run that claimed it did not
   * reach the call): the request is authorized again, for the run that will.
   */
  | { type: 'release_execution' };

/** The event types legal in each state. Terminal states accept none. */
export const TRANSITIONS: Readonly<Record<RequestStatus, readonly RequestEvent['type'][]>> = {
  pending: ['approve', 'reject', 'respond', 'edit', 'supersede', 'expire', 'cancel'],
  authorized: ['start_execution', 'finish_execution', 'cancel'],
  executing: ['finish_execution', 'release_execution'],
  rejected: [],
  responded: [],
  expired: [],
  cancelled: [],
  superseded: [],
  executed: [],
  failed: [],
};

/** A writer asked for a change the state machine does not allow; nothing was written. */
export class IllegalTransitionError extends InterlockUsageError {
  constructor(req: Pick<ApprovalRequest, 'id' | 'status'>, event: RequestEvent['type']) {
    super(
      'illegal_transition',
      `Approval request ${req.id} is ${req.status}; "${event}" is not possible in that state (possible: ${TRANSITIONS[req.status].join(', ') || 'none, it is final'}).`,
      { details: { requestId: req.id, status: req.status, event } },
    );
  }
}

/** A planted check was about to run: it tests reviewers and never executes, whatever was decided. */
export class PlantedCheckError extends InterlockUsageError {
  constructor(requestId: string) {
    super(
      'planted_check',
      `Approval request ${requestId} is a planted check: it tests reviewers and never runs, whatever was decided.`,
      { details: { requestId } },
    );
  }
}

/**
 * The guard on running a request's action, beside the states: a planted check never runs. Checked
 * by {@link transition} for `start_execution` and `finish_execution`, and by the executor before it
 * claims the action (the one place the engine asks "may this run?").
 */
export function executionGuard(req: Pick<ApprovalRequest, 'id' | 'planted'>): void {
  if (req.planted) throw new PlantedCheckError(req.id);
}

/**
 * The request after `event` at `now`: version bumped, timestamps set, resolution
 * recorded. Throws {@link IllegalTransitionError} for a change the current
 * state does not allow; never mutates `req`.
 */
export function transition(req: ApprovalRequest, event: RequestEvent, now: number): ApprovalRequest {
  if (!TRANSITIONS[req.status].includes(event.type)) throw new IllegalTransitionError(req, event.type);
  if (event.type === 'start_execution' || event.type === 'finish_execution') executionGuard(req);
  const next: ApprovalRequest = { ...req, version: req.version + 1, updatedAt: now };
  const resolved = (status: RequestStatus, resolution: Resolution | null): ApprovalRequest => ({
    ...next,
    status,
    resolvedAt: now,
    resolution,
  });
  switch (event.type) {
    case 'approve': {
      const received = req.approvalsReceived + 1;
      if (received < req.approvalsRequired) return { ...next, approvalsReceived: received };
      return {
        ...resolved('authorized', { type: 'approve', by: event.by, at: now, ...(event.trust ? { trust: true } : {}) }),
        approvalsReceived: received,
      };
    }
    case 'reject':
    case 'respond':
      return resolved(event.type === 'reject' ? 'rejected' : 'responded', {
        type: event.type,
        by: event.by,
        at: now,
        ...(event.message === undefined ? {} : { message: event.message }),
      });
    case 'edit':
      return {
        ...resolved('authorized', { type: 'edit', by: event.by, at: now, originalArgs: req.args }),
        args: event.args,
        actionHash: event.actionHash,
        // The editor approved what they wrote: it counts, as decide() records it.
        approvalsReceived: req.approvalsReceived + 1,
      };
    case 'supersede': {
      const resolution: Resolution =
        event.cause === 'edit'
          ? { type: 'edit', by: event.by, at: now, originalArgs: event.originalArgs ?? req.args }
          : { type: 'timeout', by: event.by, at: now, applied: 'escalate' };
      return { ...resolved('superseded', resolution), supersededBy: event.newRequestId };
    }
    case 'expire':
      return resolved(event.applied === 'approve' ? 'authorized' : 'expired', {
        type: 'timeout',
        by: event.by,
        at: now,
        applied: event.applied,
      });
    case 'cancel':
      return { ...next, status: 'cancelled', resolvedAt: req.resolvedAt ?? now };
    case 'start_execution':
      return { ...next, status: 'executing' };
    case 'finish_execution':
      return { ...next, status: event.ok ? 'executed' : 'failed' };
    case 'release_execution':
      return { ...next, status: 'authorized' };
  }
}
