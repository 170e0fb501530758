import type { RejectReasons, Tier, TimeoutDecision } from './policy.ts';
import { aRole } from './role-text.ts';
import {
  ActionHashMismatchError,
  AlreadyResolvedError,
  ForbiddenError,
  ReasonRequiredError,
  RequestExpiredError,
  StaleVersionError,
  ValidationError,
} from './errors.ts';

/**
 * Life of an approval request:
 * `pending → authorized | rejected | responded | expired | cancelled | superseded`,
 * then for authorized actions `executing → executed | failed`.
 */
export const REQUEST_STATUSES = [
  'pending',
  'authorized',
  'rejected',
  'responded',
  'expired',
  'cancelled',
  'superseded',
  'executing',
  'executed',
  'failed',
] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** The four decisions a reviewer can make. */
export const DECISION_TYPES = ['approve', 'edit', 'reject', 'respond'] as const;
export type DecisionType = (typeof DECISION_TYPES)[number];

/** The longest message a decision may carry (a rejection's reason, a reviewer's answer). */
export const MAX_DECISION_MESSAGE = 10_000;

/** A reviewer's decision as submitted. */
export interface Decision {
  type: DecisionType;
  /** The request version the reviewer saw. */
  expectedVersion: number;
  /** The action hash the reviewer saw. */
  actionHash: string;
  /** New arguments (edit only). */
  args?: Record<string, unknown>;
  /** Message to the agent (reject) or the tool result to use (respond). */
  message?: string;
  /** Approve and trust this tool's rule for the rest of the thread. */
  trust?: boolean;
}

/** Who decides. */
export interface Reviewer {
  id: string;
  name?: string;
  roles: readonly string[];
}

/** An approval request as stored. */
export interface ApprovalRequest {
  id: string;
  threadId: string;
  checkpointId: string | null;
  toolCallId: string | null;
  tool: string;
  args: Record<string, unknown>;
  actionHash: string;
  reason: string;
  ruleId: string;
  tier: Tier;
  role: string;
  approvalsRequired: number;
  approvalsReceived: number;
  version: number;
  status: RequestStatus;
  proposer: string;
  evidence: Record<string, unknown>;
  /** Application context the policy saw (re-used when an edit re-runs the policy). */
  context: Record<string, unknown>;
  onTimeout: TimeoutDecision;
  escalateTo: { role: string; approvals: number; timeoutMs: number } | null;
  trustable: boolean;
  /** The decisions its rule allows (see the rule's `decisions`); absent: all four. */
  decisions?: DecisionType[];
  /** Its rule's reject reasons (see the rule's `rejectReasons`); absent: a reason is optional. */
  rejectReasons?: RejectReasons;
  /** The decision that resolved it (or the timeout default applied). */
  resolution: Resolution | null;
  parentId: string | null;
  supersededBy: string | null;
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
  resolvedAt: number | null;
  /**
   * A planted check (see docs/metrics.md): a synthetic request that tests whether reviewers catch what
   * they should. Never executable; shown to reviewers like any request until decided.
   */
  planted?: boolean;
}

/** How a request was resolved. */
export interface Resolution {
  type: DecisionType | 'timeout';
  by: string;
  at: number;
  message?: string;
  /** For edits: the args before the edit. */
  originalArgs?: Record<string, unknown>;
  trust?: boolean;
  /** For timeouts: which default applied. */
  applied?: TimeoutDecision;
}

/** Decisions still possible on a request, whoever asks. */
export function allowedDecisions(req: Pick<ApprovalRequest, 'status' | 'decisions'>): DecisionType[] {
  if (req.status !== 'pending') return [];
  return DECISION_TYPES.filter((t) => !req.decisions || req.decisions.includes(t));
}

/**
 * Who may decide: the one answer to "may this reviewer take this decision on
 * this request?", for the engine's decide path, the API's `allowedDecisions`
 * and batch review. Returns the refusal (forbidden_role, self_approval,
 * duplicate_reviewer for a second approval) or undefined when they may. It looks only at who the
 * reviewer is, never at the request's state, so it can run before anything
 * that would tell the caller about that state. `priorVoters` are reviewers who
 * already approved this request (quorum).
 */
export function eligibilityRefusal(
  req: Pick<ApprovalRequest, 'id' | 'role' | 'proposer' | 'approvalsRequired'>,
  reviewer: Pick<Reviewer, 'id' | 'roles'>,
  type: DecisionType,
  priorVoters: readonly string[],
): ForbiddenError | undefined {
  if (!reviewer.roles.includes(req.role)) {
    return new ForbiddenError(
      'forbidden_role',
      `Approval request ${req.id} is for role "${req.role}", which reviewer "${reviewer.id}" does not have. Ask someone with that role.`,
      {
        requestId: req.id,
        requiredRole: req.role,
      },
    );
  }
  if (reviewer.id === req.proposer) {
    // A request made by an edit names the editor as its proposer (see decide).
    return new ForbiddenError(
      'self_approval',
      `Reviewer "${reviewer.id}" proposed this action (an edit makes its author the proposer of what they wrote), so cannot decide it; another reviewer must.`,
      {
        requestId: req.id,
      },
    );
  }
  // Counted toward a quorum: approving again would count twice, but changing one's mind (reject,
  // respond) or proposing a change (edit) while the request is pending is still theirs to do.
  if (type === 'approve' && priorVoters.includes(reviewer.id)) {
    return new ForbiddenError(
      'duplicate_reviewer',
      `Reviewer "${reviewer.id}" already approved request ${req.id}; it needs ${req.approvalsRequired} different reviewers. Ask ${aRole(req.role).replace(/^an? /, 'another ')}.`,
      { requestId: req.id },
    );
  }
  return undefined;
}

/**
 * Decisions `reviewer` can take on `req` now: none once it is resolved or past
 * its expiry (the sweeper may not have run yet), else those
 * {@link eligibilityRefusal} does not refuse.
 */
export function decisionsFor(
  req: ApprovalRequest,
  reviewer: Pick<Reviewer, 'id' | 'roles'>,
  priorVoters: readonly string[],
  now: number,
): DecisionType[] {
  if (now >= req.expiresAt) return [];
  return allowedDecisions(req).filter((t) => eligibilityRefusal(req, reviewer, t, priorVoters) === undefined);
}

/**
 * Check that `reviewer` may take `decision` on `req` now. Throws the distinct
 * coded error for each refusal. `priorVoters` are reviewers who already
 * approved this request (quorum). Order matters: who may decide is checked
 * first, so a reviewer who may not learns nothing of the request's state (its
 * version, hash or status); then a resolved request reports "already
 * resolved" even when it has also expired.
 */
export function checkDecision(
  req: ApprovalRequest,
  decision: Decision,
  reviewer: Reviewer,
  now: number,
  priorVoters: readonly string[],
): void {
  const refusal = eligibilityRefusal(req, reviewer, decision.type, priorVoters);
  if (refusal) throw refusal;
  if (req.status !== 'pending') throw new AlreadyResolvedError(req.id, req.status);
  if (now >= req.expiresAt) throw new RequestExpiredError(req.id, new Date(req.expiresAt).toISOString());
  if (req.decisions && !req.decisions.includes(decision.type))
    throw new ForbiddenError(
      'decision_not_allowed',
      `Approval request ${req.id} takes only ${req.decisions.join(', ')} (its rule "${req.ruleId}" allows no ${decision.type}); decide with one of those.`,
      { requestId: req.id, allowed: req.decisions },
    );
  if (decision.expectedVersion !== req.version)
    throw new StaleVersionError(req.id, decision.expectedVersion, req.version);
  if (decision.actionHash !== req.actionHash)
    throw new ActionHashMismatchError(req.id, decision.actionHash, req.actionHash);
  if (
    decision.type === 'edit' &&
    (decision.args === undefined || decision.args === null || typeof decision.args !== 'object')
  ) {
    throw new ValidationError('An edit needs "args": the full new arguments of the tool call.', [
      { path: 'args', message: 'required for edit' },
    ]);
  }
  // One limit for every door (API, Slack, CLI, in-process answers): the model reads this text.
  const message: unknown = decision.message;
  const notText = message !== undefined && typeof message !== 'string' && decision.type !== 'respond';
  if (notText || (typeof message === 'string' && message.length > MAX_DECISION_MESSAGE)) {
    throw new ValidationError(
      `A decision's "message" must be text of at most ${MAX_DECISION_MESSAGE} characters (this one is ${typeof message === 'string' ? `${message.length} characters` : `a ${typeof message}`}).`,
      [{ path: 'message', message: `text, at most ${MAX_DECISION_MESSAGE} characters` }],
    );
  }
  // Checked here, in the one decision check, so it holds at every door (API, CLI, Slack, web, in-process answers).
  if (decision.type === 'reject' && req.rejectReasons?.required && !(typeof message === 'string' && message.trim()))
    throw new ReasonRequiredError(req.id, req.ruleId, req.rejectReasons.choices);
  if (decision.type === 'respond' && typeof decision.message !== 'string') {
    throw new ValidationError('A respond decision needs "message": the text the agent receives as the tool result.', [
      { path: 'message', message: 'required for respond' },
    ]);
  }
  if (decision.trust && (decision.type !== 'approve' || !req.trustable)) {
    throw new ForbiddenError(
      'decision_not_allowed',
      `Approval request ${req.id} cannot be approved with trust: only an approve on a trustable rule can.`,
      { requestId: req.id },
    );
  }
}
