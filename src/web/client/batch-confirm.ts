import { confirmStep } from './confirm.ts';
import { h, type Child } from './dom.ts';
import {
  amountText,
  itemNumbers,
  listText,
  noteOf,
  sameActionGroups,
  subjectGroups,
  subjectGroupText,
  totalAmount,
  type Batch,
} from './batch-model.ts';
import { argsLine } from './format.ts';
import type { RequestSummary } from './types.ts';

/**
 * The confirm step of a batch approval, in words: how many actions of which tools, the total
 * amount, the subjects (an order, a customer) that several of them act on with their sums, the
 * same action twice, hidden or look-alike characters, and what stays pending. The actions
 * themselves are one line each, folded away: the sums are what a reviewer reads first.
 */

function toolsLine(chosen: readonly RequestSummary[]): string {
  const by = new Map<string, number>();
  for (const r of chosen) by.set(r.tool, (by.get(r.tool) ?? 0) + 1);
  const parts = [...by].map(([tool, n]) => `${n} × ${tool}`);
  return `${chosen.length} action${chosen.length === 1 ? '' : 's'}: ${listText(parts)}.`;
}

function amountLine(b: Batch, chosen: readonly RequestSummary[]): HTMLElement | null {
  const { sum, counted } = totalAmount(b, chosen);
  if (counted === 0) return null;
  const of = counted === chosen.length ? '' : ` (${counted} of the ${chosen.length} have an amount)`;
  return h('p', { id: 'confirm-amount' }, h('strong', null, `Amount: ${amountText(sum)} in all`), of, '.');
}

/** The warnings over the chosen items: subjects shared, the same action twice, hidden and look-alike characters. */
function warningLines(b: Batch, chosen: readonly RequestSummary[]): HTMLElement[] {
  const numberOf = itemNumbers(b);
  const lines: string[] = [];
  for (const g of subjectGroups(b, chosen)) lines.push(`${subjectGroupText(g)}.`);
  for (const g of sameActionGroups(chosen)) {
    const nos = g.ids.map((id) => numberOf.get(id) ?? '?');
    lines.push(
      `Items ${listText(nos)} are the same action (${g.tool}): approving all of them runs it ${g.ids.length} times.`,
    );
  }
  const hidden = chosen.filter((r) => noteOf(b, r.id).warnings.some((w) => w.kind === 'hidden')).length;
  if (hidden) lines.push(`${hidden} contain${hidden === 1 ? 's' : ''} hidden characters.`);
  const words = chosen.flatMap((r) => noteOf(b, r.id).warnings.flatMap((w) => (w.kind === 'lookalike' ? w.words : [])));
  if (words.length) lines.push(`Look-alike letters in ${listText(words.map((w) => `“${w}”`))}.`);
  return lines.map((t) => h('li', null, `⚠ ${t}`));
}

function escalateLine(chosen: readonly RequestSummary[]): HTMLElement | null {
  const esc = chosen.filter((r) => r.tier === 'escalate');
  if (esc.length === 0) return null;
  return h(
    'p',
    { id: 'confirm-escalate' },
    `${esc.length} ${esc.length === 1 ? 'is' : 'are'} escalate-tier: your approval counts toward ${esc.length === 1 ? 'its' : 'their'} quorum.`,
  );
}

/** The confirm dialog's body for approving `chosen` out of the page's items. */
function confirmBody(b: Batch, chosen: readonly RequestSummary[]): Child {
  const warnings = warningLines(b, chosen);
  const left = b.items.length - chosen.length;
  return [
    h('p', { id: 'confirm-count' }, toolsLine(chosen)),
    amountLine(b, chosen),
    escalateLine(chosen),
    warnings.length
      ? h('ul', { class: 'confirm-warnings', id: 'confirm-warnings', 'aria-label': 'Warnings' }, warnings)
      : null,
    left
      ? h('p', { class: 'muted small' }, `${left} not ticked: ${left === 1 ? 'it stays' : 'they stay'} pending.`)
      : null,
    h(
      'details',
      { class: 'confirm-actions-list' },
      h('summary', null, `The ${chosen.length === 1 ? 'action' : `${chosen.length} actions`}, one per line`),
      h(
        'ol',
        { class: 'confirm-list' },
        chosen.map((r) => h('li', null, h('code', null, r.tool), ' ', argsLine(r.args, 200))),
      ),
    ),
  ];
}

/** Ask before approving `chosen`: resolves true once the reviewer confirms. */
export function confirmBatch(b: Batch, chosen: readonly RequestSummary[]): Promise<boolean> {
  return confirmStep({
    title: `Approve ${chosen.length === 1 ? 'this request' : `these ${chosen.length} requests`}?`,
    body: confirmBody(b, chosen),
    confirm: `Approve ${chosen.length}`,
    wide: true,
  });
}
