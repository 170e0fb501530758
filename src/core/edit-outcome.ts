import type { ApprovalRequest } from './approval.ts';
import { tierRank, type Verdict } from './tiers.ts';

/**
 * What a reviewer's edit of a pending request becomes, given the policy's verdict on the edited
 * arguments (Invariant 5: an edit keeps or raises the tier, never lowers it):
 * - `in_place`: authorized as edited, on this request;
 * - `new_request`: a new proposal that others decide — at the raised tier (a stricter rule: a higher
 *   tier, more approvals, another role), or, for a quorum, at the request's own rule so that the
 *   edited action gets fresh approvals (the editor's counts: `editorCounts`).
 */
export type EditOutcome =
  | { kind: 'in_place' }
  | { kind: 'new_request'; raised: boolean; verdict: Verdict; editorCounts: boolean; reason: string };

/** Decide what an edit becomes (pure: the engine writes it). */
export function editOutcome(req: ApprovalRequest, verdict: Verdict): EditOutcome {
  const rank = tierRank(verdict.tier) - tierRank(req.tier);
  const raised =
    rank > 0 ||
    (rank === 0 &&
      (verdict.approvalsRequired > req.approvalsRequired || (verdict.role !== null && verdict.role !== req.role)));
  if (raised) return { kind: 'new_request', raised, verdict, editorCounts: false, reason: verdict.reason };
  if (req.approvalsRequired <= 1) return { kind: 'in_place' };
  return {
    kind: 'new_request',
    raised: false,
    editorCounts: true,
    reason: 'edited action needs a fresh quorum',
    verdict: {
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
      ...(req.decisions ? { decisions: req.decisions } : {}),
    },
  };
}
