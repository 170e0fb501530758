import type { ApiError } from './api.ts';
import { when } from './time.ts';

/**
 * What a reviewer reads when a decision is refused, one sentence per stable
 * code, for the review card and the batch page alike. A refused decision was
 * sent and turned down, so the texts never say "nothing was sent"; they say
 * what happened and what to do. Unknown codes fall back to the server's message.
 */

/** What the text may use of the request the reviewer was looking at. */
export interface RefusalContext {
  expiresAt?: string;
  onTimeout?: string;
  status?: string;
}

/** What the timeout default does now that nobody decided in time. */
function timeoutOutcome(onTimeout: string | undefined): string {
  switch (onTimeout) {
    case 'approve':
      return 'its timeout default (approve) applies, so it may still run without you';
    case 'escalate':
      return 'its timeout default (escalate) hands it to another reviewer';
    case 'abort':
      return 'nothing ran; its timeout default (abort) stops the conversation';
    default:
      return 'nothing ran; its timeout default (reject) applies';
  }
}

/**
 * The sentence for a request that is past its expiry: shown when the page sees
 * the time run out before sending (nothing is sent then) and when the server
 * refuses a decision because of it.
 * @example
 * expiredText({ expiresAt: '2026-05-14T14:32:05Z', onTimeout: 'reject' })
 * // 'This request expired at 14 May, 14:32:05; nothing ran; its timeout default (reject) applies.'
 */
export function expiredText(c: RefusalContext): string {
  return `This request expired${c.expiresAt ? ` at ${when(c.expiresAt)}` : ''}; ${timeoutOutcome(c.onTimeout)}.`;
}

/** A refusal's details, as the API sends them (`error.details`) or the review packet implies them. */
type Details = Record<string, unknown>;

const TEXTS: Record<string, (d: Details, c: RefusalContext) => string> = {
  already_resolved: (d, c) => {
    const status = typeof d.status === 'string' ? d.status : c.status;
    if (status === 'expired') return expiredText(c);
    return `someone else decided this request first${status ? ` (it is now ${status})` : ''}. The card shows what happened.`;
  },
  request_expired: (d, c) =>
    expiredText({ ...c, expiresAt: typeof d.expiresAt === 'string' ? d.expiresAt : c.expiresAt }),
  stale_version: () => 'this request changed while you were looking at it (another reviewer acted). Review it again.',
  action_hash_mismatch: () => 'the action changed since you loaded it. Review the new action.',
  forbidden_role: (d) =>
    `deciding needs the "${typeof d.requiredRole === 'string' ? d.requiredRole : 'required'}" role, which you do not have. Ask someone who has it.`,
  self_approval: () => 'you proposed this action, so someone else must decide it.',
  duplicate_reviewer: () => 'you already approved this request; it needs approvals from different reviewers.',
  decision_not_allowed: (d) =>
    Array.isArray(d.allowed) && d.allowed.length
      ? `the rule of this request takes only ${d.allowed.join(', ')}.`
      : 'the rule of this request does not take that decision.',
  rate_limited: () => 'too many decisions in a short time. Wait a moment and try again.',
  batch_digest_mismatch: () => 'the list changed since it was shown. Reload the batch and review it again.',
};

/** Codes whose refusal means the request moved on and the card should be reloaded. */
export const CONFLICT_CODES: ReadonlySet<string> = new Set([
  'already_resolved',
  'request_expired',
  'stale_version',
  'action_hash_mismatch',
]);

/**
 * Why a decision was refused, as a sentence that starts in lower case so it
 * can follow "refused: " (the batch page's per-item line).
 */
export function refusalReason(e: ApiError, c: RefusalContext = {}): string {
  const text = TEXTS[e.code];
  const s = text ? text(e.details, c) : e.message;
  return `${s.charAt(0).toLowerCase()}${s.slice(1)}`;
}

/**
 * Why a decision the card offers is not available to this reviewer now, from the code the API would
 * refuse it with (the review packet's `refusals`), in the same words as that refusal:
 * "you already approved this request; it needs approvals from different reviewers."
 */
export function unavailableReason(code: string, details: Details = {}, c: RefusalContext = {}): string {
  const text = TEXTS[code];
  const s = text ? text(details, c) : 'you cannot take this decision now.';
  return `${s.charAt(0).toLowerCase()}${s.slice(1)}`;
}

/**
 * The refusal as one sentence, e.g. "Your decision was refused: this request
 * expired at 14 May, 14:32:05; nothing ran; its timeout default (reject) applies."
 * Expiry reads as an expiry, never as another reviewer's decision.
 */
export function refusalText(e: ApiError, c: RefusalContext = {}): string {
  if (e.status === 0) return e.message;
  return `Your decision was refused: ${refusalReason(e, c)}`;
}
