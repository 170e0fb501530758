import type { CallOutcome } from './outcome.ts';

/**
 * What the model is told about a call that did not run as it proposed (or ran as a reviewer edited it).
 * Defaults are neutral — what to say to whom is the agent's business (its instructions), not the
 * approval layer's — and name no reviewer. Every agent and adapter takes `texts` to replace any of them.
 */
export interface ModelTexts {
  /** A call the policy blocks (`reason`: the rule's). */
  blocked(reason: string): string;
  /** A call a reviewer rejected, with their message if any. */
  rejected(message: string | undefined): string;
  /** A call nobody decided before its deadline (the timeout's default did not let it run). */
  expired(): string;
  /** A call whose request was cancelled (its thread ended, a planted check). */
  cancelled(): string;
  /** Prefixed to the result of a call a reviewer edited before it ran (adapters that return text). */
  edited(args: Record<string, unknown>): string;
  /** A call refused, before anything ran, because another call of its step used the same call id. */
  duplicateCallId(toolCallId: string): string;
  /** A call refused because an earlier call of the conversation had its call id (frameworks that keep the conversation). */
  reusedCallId(toolCallId: string): string;
}

/** The default {@link ModelTexts}. */
export const DEFAULT_MODEL_TEXTS: ModelTexts = {
  blocked: (reason) => `Blocked by policy: ${reason}. This action was not performed; do not retry it.`,
  rejected: (message) =>
    `A reviewer rejected this action; it was not performed.${message ? ` Reviewer's message: ${message}` : ''}`,
  expired: () => 'No reviewer decided before the deadline, so the action was not performed (timeout default: reject).',
  cancelled: () => 'The approval request was cancelled; the action was not performed.',
  edited: (args) => `A reviewer changed the arguments before this ran; it ran with ${JSON.stringify(args)}.`,
  duplicateCallId: (id) =>
    `Two calls in one step used the same call id (${id}); none of them ran. Propose each call again with its own id.`,
  reusedCallId: (id) =>
    `An earlier call in this conversation already used the call id ${id}; this call did not run. Propose it again with a new id.`,
};

/** The defaults with an agent's own texts over them. */
export function modelTexts(own: Partial<ModelTexts> | undefined): ModelTexts {
  return own ? { ...DEFAULT_MODEL_TEXTS, ...own } : DEFAULT_MODEL_TEXTS;
}

/** The text the model gets for a gated call that did not run (a reviewer's answer is the answer itself). */
export function notRunText(
  o: Exclude<CallOutcome, { state: 'pending' | 'approved' }>,
  texts: ModelTexts = DEFAULT_MODEL_TEXTS,
): string {
  switch (o.state) {
    case 'rejected':
      return texts.rejected(o.message);
    case 'responded':
      return o.message;
    case 'expired':
      return texts.expired();
    default:
      return texts.cancelled();
  }
}

/** The text the model gets for a call the policy blocks. */
export function blockedText(reason: string, texts: ModelTexts = DEFAULT_MODEL_TEXTS): string {
  return texts.blocked(reason);
}
