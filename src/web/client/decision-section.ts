import { h } from './dom.ts';
import { unavailableReason } from './refusals.ts';
import { whyNot } from './review-card.ts';
import { expired, keyHint, type DecisionBody } from './review-panels.ts';
import type { Me, ReviewPacket } from './types.ts';

/**
 * The review card's decision block: the four buttons, each one this reviewer cannot take disabled
 * with the reason beside it (in the API's refusal words), the trust option, the open panel, and —
 * when nothing here is theirs to decide — the way on to the next request.
 */

type Decision = DecisionBody['type'];

/** What the block reads from the page and what its controls do there. */
export interface DecisionView {
  /** A decision is in flight: every button stays disabled. */
  busy: boolean;
  /** The open panel (edit, reject, respond), if any. */
  panel: Exclude<Decision, 'approve'> | null;
  /** The open panel's element (kept across renders by the page). */
  panelEl: HTMLElement | null;
  approve: () => void;
  open: (which: Exclude<Decision, 'approve'>) => void;
  /** Go to the next request this reviewer can decide. */
  next: () => void;
  /** Who is looking at the request (claims.ts): one element kept by the page across renders. */
  claim?: HTMLElement;
}

const BUTTONS: Array<{ type: Decision; label: string; key: string; cls: string }> = [
  { type: 'approve', label: 'Approve', key: 'a', cls: 'btn-primary' },
  { type: 'edit', label: 'Edit', key: 'e', cls: '' },
  { type: 'reject', label: 'Reject', key: 'r', cls: 'btn-danger-outline' },
  { type: 'respond', label: 'Respond', key: 'n', cls: '' },
];

/** "Approve is not available: you already approved this request; …" for each refused decision. */
function unavailableList(p: ReviewPacket, allowed: readonly Decision[]): HTMLElement | null {
  const refused = BUTTONS.filter((b) => !allowed.includes(b.type));
  if (refused.length === 0) return null;
  return h(
    'ul',
    { class: 'unavailable', id: 'unavailable' },
    refused.map((b) =>
      h(
        'li',
        { id: `why-${b.type}` },
        h('strong', null, `${b.label} is not available`),
        `: ${unavailableReason(p.refusals[b.type] ?? 'decision_not_allowed', { requiredRole: p.requiredRole }, p)}`,
      ),
    ),
  );
}

function nextButton(v: DecisionView): HTMLElement {
  return h(
    'p',
    { class: 'next-line' },
    h('button', { type: 'button', class: 'btn', id: 'next-request', onClick: v.next }, 'Next request →'),
  );
}

/** The decision block of `p` for `myself`. */
export function decisionSection(p: ReviewPacket, myself: Me, v: DecisionView): HTMLElement {
  const allowed = expired(p) ? [] : p.allowedDecisions;
  const head = h('h2', { id: 'h-decide' }, 'Decision');
  if (allowed.length === 0) {
    return h(
      'section',
      { class: 'decide', 'aria-labelledby': 'h-decide' },
      head,
      h('p', { class: 'muted', id: 'no-decision' }, whyNot(p, myself)),
      v.claim,
      nextButton(v),
    );
  }
  const button = (b: (typeof BUTTONS)[number]) =>
    h(
      'button',
      {
        type: 'button',
        class: `btn ${b.cls}`,
        id: `do-${b.type}`,
        'aria-keyshortcuts': b.key,
        'aria-expanded': b.type === 'approve' ? null : String(v.panel === b.type),
        // A decision this reviewer cannot take says why, next to it and to assistive technology.
        'aria-describedby': allowed.includes(b.type) ? null : `why-${b.type}`,
        disabled: v.busy || !allowed.includes(b.type),
        onClick: b.type === 'approve' ? v.approve : () => v.open(b.type as Exclude<Decision, 'approve'>),
      },
      b.label,
      ' ',
      keyHint(b.key.toUpperCase()),
    );
  const trust = p.trustable ? h('input', { type: 'checkbox', id: 'trust', name: 'trust' }) : null;
  return h(
    'section',
    { class: 'decide', 'aria-labelledby': 'h-decide' },
    head,
    h('div', { class: 'decide-buttons', role: 'group', 'aria-label': 'Decisions' }, BUTTONS.map(button)),
    v.claim,
    unavailableList(p, allowed),
    trust && allowed.includes('approve')
      ? h(
          'div',
          { class: 'check trust' },
          trust,
          h(
            'label',
            { for: 'trust' },
            'Approve and trust for this thread: later calls under rule ',
            h('code', null, p.ruleId),
            ' in this thread run without asking',
          ),
        )
      : null,
    v.panelEl,
  );
}
