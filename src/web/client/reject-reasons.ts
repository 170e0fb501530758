import { h } from './dom.ts';
import type { ReviewPacket } from './types.ts';

/**
 * The reject panel's reason, from the request's rule (`rejectReasons`): its canned choices as radio
 * buttons beside the free-text message, and whether a reason is required. The reason is the message
 * the agent reads; the engine refuses a reject without one where it is required (`reason_required`),
 * so this only says so before sending.
 */

/** The reason part of the reject panel. */
export interface ReasonField {
  /** The choices and what the rule asks, shown above the message field. */
  readonly element: HTMLElement;
  /** The label of the free-text field under it. */
  readonly textLabel: string;
  /**
   * The message to send from the choice and the free text ("Duplicate request — see ORD-7"), or
   * undefined when a required reason is missing: then `error` says so and focus goes to the choices.
   */
  compose(text: string, error: HTMLElement): string | undefined;
}

/** The reason field of `p`'s reject panel; undefined when its rule says nothing of reasons. */
export function rejectReasonField(p: Pick<ReviewPacket, 'rejectReasons'>): ReasonField | undefined {
  const rr = p.rejectReasons;
  if (!rr) return undefined;
  const radios = rr.choices.map((c, i) =>
    h('input', { type: 'radio', name: 'reject-reason', id: `reject-reason-${i}`, value: c }),
  );
  const element = h(
    'fieldset',
    { class: 'reject-reasons', id: 'reject-reasons', 'aria-describedby': 'reject-reasons-hint' },
    h('legend', null, rr.required ? 'Reason (required)' : 'Reason'),
    h(
      'p',
      { class: 'field-hint', id: 'reject-reasons-hint' },
      rr.required
        ? 'This rule asks for a reason to reject: the agent reads it. '
        : 'The agent reads the reason you give. ',
      rr.choices.length ? 'Pick one, add words of your own below, or write your own.' : 'Write it below.',
    ),
    radios.map((r, i) => h('div', { class: 'check' }, r, h('label', { for: r.id }, rr.choices[i] ?? ''))),
  );
  return {
    element,
    textLabel: rr.choices.length
      ? 'Your own words (added to the choice, or on their own)'
      : 'Reason, as the agent reads it',
    compose(text, error) {
      const choice = radios.find((r) => r.checked)?.value;
      const message = choice && text ? `${choice} — ${text}` : (choice ?? text);
      if (!message && rr.required) {
        error.textContent = 'This rule needs a reason to reject: pick one or write your own.';
        (radios[0] ?? document.getElementById('reject-message'))?.focus();
        return undefined;
      }
      error.textContent = '';
      return message;
    },
  };
}
