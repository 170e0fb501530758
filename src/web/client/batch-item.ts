import type { BatchWarning } from '../batch-types.ts';
import { h, type Child } from './dom.ts';
import {
  amountText,
  itemNumbers,
  listText,
  noteOf,
  subjectGroups,
  subjectKey,
  type Batch,
  type BatchState,
  type SubjectGroup,
} from './batch-model.ts';
import { outcomeLine } from './batch-outcome.ts';
import { exactJson, roleChip, short, tierBadge } from './format.ts';
import { countdown } from './time.ts';
import type { RequestSummary } from './types.ts';

/** One item of the batch page: what will run, what warns about it, its tick box or, once sent, its outcome. */

/** What every item's card reads of the whole page, computed once per render. */
export interface PageIndex {
  /** Item numbers by id, as the page shows them (1-based). */
  numbers: ReadonlyMap<string, number>;
  /** The page's subjects shared by several items, by {@link subjectKey}. */
  groups: ReadonlyMap<string, SubjectGroup>;
}

/** The {@link PageIndex} of a batch. */
export function pageIndex(b: Batch): PageIndex {
  return {
    numbers: itemNumbers(b),
    groups: new Map(subjectGroups(b, b.items).map((g) => [subjectKey(g.subject), g])),
  };
}

const numbersOf = (ids: readonly string[], x: PageIndex) => ids.map((id) => x.numbers.get(id) ?? '?');

/** One warning in words, for the item it is about. */
function warningText(w: BatchWarning, x: PageIndex): string {
  switch (w.kind) {
    case 'same_action':
      return `The same action as item ${listText(numbersOf(w.ids, x))}: approving all of them runs it more than once.`;
    case 'same_subject': {
      const amount = x.groups.get(subjectKey(w.subject))?.amount ?? null;
      const sum = amount === null ? '' : `, ${amountText(amount)} in all`;
      return `${w.ids.length + 1} requests in this list act on ${w.subject.label} ${String(w.subject.value)}${sum} (also item ${listText(numbersOf(w.ids, x))}).`;
    }
    case 'hidden':
      return `Hidden characters in the arguments: ${w.names}. They run exactly as sent; each is shown as ⟨U+…⟩.`;
    case 'lookalike':
      return `Look-alike letters: ${listText(w.words.map((x) => `“${x}”`))} mix${w.words.length === 1 ? 'es' : ''} Latin with Cyrillic or Greek letters.`;
  }
}

/** The chips in an item's title line for the warnings a reviewer must not miss at a glance. */
function warningChips(ws: readonly BatchWarning[]): Child[] {
  const chip = (text: string, title: string) => [' ', h('span', { class: 'chip chip-hidden', title }, text)];
  return [
    ws.some((w) => w.kind === 'hidden') ? chip('⚠ hidden characters', 'The arguments contain hidden characters') : null,
    ws.some((w) => w.kind === 'lookalike')
      ? chip('⚠ look-alike letters', 'Words mix Latin with Cyrillic or Greek letters')
      : null,
  ];
}

function tickBox(s: BatchState, r: RequestSummary, no: number, onToggle: () => void): HTMLElement {
  const id = `pick-${no}`;
  const box = h('input', {
    type: 'checkbox',
    id,
    checked: s.picked.has(r.id),
    disabled: s.busy,
    'data-id': r.id,
  });
  box.addEventListener('change', () => {
    if (box.checked) s.picked.add(r.id);
    else s.picked.delete(r.id);
    onToggle();
  });
  const label =
    r.tier === 'escalate'
      ? `Approve this escalate-tier request too (it needs ${r.approvalsRequired} ${r.requiredRole} approval${r.approvalsRequired === 1 ? '' : 's'}; never ticked for you)`
      : 'Approve this one';
  return h('div', { class: 'check pick' }, box, h('label', { for: id }, label));
}

/** The item card: number, tool, tier, role, version; exact arguments; warnings; tick box or outcome. */
export function itemCard(s: BatchState, b: Batch, r: RequestSummary, x: PageIndex, onToggle: () => void) {
  const no = x.numbers.get(r.id) ?? 0;
  const out = outcomeLine(s, r);
  const warnings = noteOf(b, r.id).warnings;
  return h(
    'li',
    {
      class: `batch-item${out ? ` is-${out.kind}` : ''}${r.tier === 'escalate' ? ' is-escalate' : ''}${warnings.length ? ' has-warnings' : ''}`,
      'data-id': r.id,
      'data-tier': r.tier,
    },
    h(
      'p',
      { class: 'qtitle' },
      h('span', { class: 'item-no' }, `${no}.`),
      ' ',
      h('code', { class: 'tool-name' }, r.tool),
      ' ',
      tierBadge(r.tier),
      ' ',
      roleChip(r.requiredRole),
      ' ',
      h('span', { class: 'chip' }, 'v', String(r.version)),
      ' ',
      h('a', { href: `/approvals/${encodeURIComponent(r.id)}` }, 'full card'),
      warningChips(warnings),
    ),
    h('pre', { class: 'mono' }, exactJson(r.args)),
    h(
      'p',
      { class: 'muted' },
      r.reason,
      out ? null : [' · expires in ', countdown(h('span', { class: 'countdown' }), r.expiresAt)],
      ' · thread ',
      short(r.threadId, 14),
    ),
    warnings.length && !out
      ? h(
          'ul',
          { class: 'item-warnings', 'aria-label': `Warnings about item ${no}` },
          warnings.map((w) => h('li', { class: `warn-${w.kind.replace('_', '-')}` }, `⚠ ${warningText(w, x)}`)),
        )
      : null,
    out
      ? h('p', { class: `result-${out.kind}`, role: 'status', 'data-outcome': out.kind }, `${out.mark} ${out.text}`)
      : tickBox(s, r, no, onToggle),
  );
}
