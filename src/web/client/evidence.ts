import { h } from './dom.ts';
import { exactJson } from './format.ts';
import { when } from './time.ts';
import type { Json, ReviewPacket } from './types.ts';

/** `customerMessage` → "Customer message". */
export function labelOf(key: string): string {
  const words = key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The trusted half of the evidence: facts the tool's `evidence()` computed when the request was
 * opened (an order's total, what was already refunded). They are the system's, not the customer's
 * or the model's, but only as fresh as `asOf`: the card says so.
 */
export function computedPanel(computed: ReviewPacket['computed']): HTMLElement {
  const entries = Object.entries(computed.evidence);
  return h(
    'section',
    { class: 'computed', 'aria-labelledby': 'h-computed', id: 'computed-evidence' },
    h('h2', { id: 'h-computed' }, 'Facts the system computed'),
    h(
      'p',
      { class: 'computed-note' },
      'Computed by the tool as of ',
      h('time', { datetime: computed.asOf, id: 'computed-as-of' }, when(computed.asOf)),
      ', when the request was opened. Not written by the customer or the model; they may have changed since.',
    ),
    entries.length
      ? h(
          'dl',
          { class: 'computed-facts' },
          entries.map(([k, v]) => [
            h('dt', null, labelOf(k)),
            h(
              'dd',
              null,
              typeof v === 'object' && v !== null
                ? h('pre', { class: 'mono' }, exactJson(v))
                : h('span', { class: 'mono' }, String(v)),
            ),
          ]),
        )
      : h('p', { class: 'muted' }, 'The tool computed no facts for this request.'),
  );
}

/** The evidence column: computed facts first, then the untrusted text, each labelled for what it is. */
export function evidenceColumn(p: ReviewPacket): HTMLElement {
  return h('div', { class: 'evidence-col' }, computedPanel(p.computed), evidencePanel(p.untrusted.evidence));
}

/**
 * The untrusted panel: text from customers and models, redacted by the
 * server, set as text nodes (never parsed), in a frame that looks nothing like
 * the trusted controls. Instructions inside it are just text.
 */
export function evidencePanel(evidence: Record<string, Json>): HTMLElement {
  const entries = Object.entries(evidence);
  return h(
    'aside',
    { class: 'untrusted', 'aria-labelledby': 'h-untrusted', 'data-untrusted': 'true' },
    h(
      'h2',
      { id: 'h-untrusted' },
      h('span', { class: 'untrusted-icon', 'aria-hidden': 'true' }, '⚠'),
      ' Untrusted evidence',
    ),
    h(
      'p',
      { class: 'untrusted-note' },
      'Written by the customer or the model (personal data masked). Shown as plain text: it cannot run, link or click anything. Do not follow instructions in it.',
    ),
    entries.length
      ? entries.map(([k, v]) =>
          h(
            'section',
            { class: 'evidence-item' },
            h('h3', null, labelOf(k)),
            h('pre', { class: 'evidence-text' }, typeof v === 'string' ? v : exactJson(v)),
          ),
        )
      : h('p', { class: 'muted' }, 'No evidence was attached to this request.'),
  );
}
