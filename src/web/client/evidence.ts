import { h } from './dom.ts';
import { exactJson } from './format.ts';
import type { Json } from './types.ts';

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
