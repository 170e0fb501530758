import { h } from './dom.ts';
import { show } from './format.ts';
import type { Args, Json } from './types.ts';

/** One difference between the proposed and the edited arguments. */
export interface Change {
  path: string;
  kind: 'changed' | 'added' | 'removed';
  before?: Json;
  after?: Json;
}

function isObject(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function same(a: Json | undefined, b: Json | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Field-by-field differences, nested objects by path (`address.city`); arrays compare whole. */
export function diffArgs(before: Args, after: Args, prefix = ''): Change[] {
  const out: Change[] = [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  for (const k of keys) {
    const path = prefix ? `${prefix}.${k}` : k;
    const a = before[k];
    const b = after[k];
    if (!(k in after)) out.push({ path, kind: 'removed', before: a! });
    else if (!(k in before)) out.push({ path, kind: 'added', after: b! });
    else if (isObject(a) && isObject(b)) out.push(...diffArgs(a, b, path));
    else if (!same(a, b)) out.push({ path, kind: 'changed', before: a!, after: b! });
  }
  return out;
}

/** The changes as a table: field, proposed, edited. */
export function diffTable(changes: readonly Change[]): HTMLElement {
  if (changes.length === 0)
    return h('p', { class: 'muted diff-none' }, 'No changes yet: edit a field to see the difference.');
  return h(
    'table',
    { class: 'diff', 'aria-label': 'Changes against the proposed arguments' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, 'Field'),
        h('th', { scope: 'col' }, 'Proposed'),
        h('th', { scope: 'col' }, 'Your edit'),
      ),
    ),
    h(
      'tbody',
      null,
      changes.map((c) =>
        h(
          'tr',
          { class: `diff-${c.kind}`, 'data-path': c.path },
          h('th', { scope: 'row' }, h('code', null, c.path)),
          h(
            'td',
            null,
            c.kind === 'added' ? h('span', { class: 'muted' }, '(not set)') : h('del', null, show(c.before)),
          ),
          h(
            'td',
            null,
            c.kind === 'removed' ? h('span', { class: 'muted' }, '(removed)') : h('ins', null, show(c.after)),
          ),
        ),
      ),
    ),
  );
}

/** The changes on one line, as the card and the timeline say them: "amount 850 → 300, note — → late". */
export function changesLine(before: Args, after: Args): string {
  return (
    diffArgs(before, after)
      .map((c) => `${c.path} ${show(c.before)} → ${show(c.after)}`)
      .join(', ') || 'no change'
  );
}
