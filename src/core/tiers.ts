/** Tiers, timeout defaults and the verdict shape: the vocabulary policy evaluation and its helpers share. */

/** How much human attention a tool call needs, from least to most. */
export const TIERS = ['auto', 'notify', 'approve', 'escalate', 'block'] as const;
export type Tier = (typeof TIERS)[number];

/** What happens to a request nobody decided before it expired. */
export const TIMEOUT_DECISIONS = ['reject', 'approve', 'escalate', 'abort'] as const;
export type TimeoutDecision = (typeof TIMEOUT_DECISIONS)[number];

/** Numeric rank of a tier: higher means more restrictive. */
export function tierRank(t: Tier): number {
  return TIERS.indexOf(t);
}

/** The more restrictive of two tiers. */
export function maxTier(a: Tier, b: Tier): Tier {
  return tierRank(a) >= tierRank(b) ? a : b;
}

/** True when the tier pauses the call for a person. */
export function isInterrupting(t: Tier): boolean {
  return t === 'approve' || t === 'escalate';
}

/**
 * The reasons a reviewer gives when rejecting a rule's requests: whether one is `required` (a reject
 * without a message is refused, `reason_required`) and the canned `choices` a reviewer is offered
 * beside free text.
 */
export interface RejectReasons {
  required: boolean;
  choices: string[];
}

/** The outcome of evaluating one call. */
export interface Verdict {
  tier: Tier;
  ruleId: string;
  reason: string;
  role: string | null;
  approvalsRequired: number;
  timeoutMs: number;
  onTimeout: TimeoutDecision;
  escalateTo: { role: string; approvals: number; timeoutMs: number } | null;
  trustable: boolean;
  /**
   * The decisions reviewers may take on the request this verdict opens (the rule's `decisions`);
   * absent: all four.
   */
  decisions?: Array<'approve' | 'edit' | 'reject' | 'respond'>;
  /** The rule's reject reasons (see the rule's `rejectReasons`); absent: a reason is optional, none offered. */
  rejectReasons?: RejectReasons;
  /** Ids of every rule that matched, most restrictive first. */
  matched: string[];
  /** Set when a triage evaluator raised the tier. */
  raisedBy?: 'triage';
}
