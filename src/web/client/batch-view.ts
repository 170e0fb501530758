import { h, type Child } from './dom.ts';
import {
  amountText,
  itemNumbers,
  listText,
  sameActionGroups,
  subjectGroups,
  subjectGroupText,
  type Batch,
  type BatchState,
} from './batch-model.ts';
import { outcomeSummary } from './batch-outcome.ts';
import { short } from './format.ts';

/** The batch page's parts around the items: title, where the page stands, alerts, and its buttons. */

/** What the page's buttons do. */
export interface PageActions {
  approve(): void;
  tickClean(): void;
  untickAll(): void;
}

/** The page's heading: the thread or the tool. */
export function title(b: Batch): HTMLElement {
  return h(
    'h1',
    null,
    'Batch review: ',
    b.group.by === 'thread' ? ['thread ', short(b.group.threadId, 22)] : ['tool ', h('code', null, b.group.tool)],
  );
}

/** The link to this group's page after request `after` (or its first page). */
function pageHref(b: Batch, after: string | null): string {
  const q = new URLSearchParams(b.group.by === 'thread' ? { threadId: b.group.threadId } : { tool: b.group.tool });
  if (after) q.set('after', after);
  return `/batch?${q.toString()}`;
}

/**
 * Where the page stands, in words: "100 of 222 you can approve in this group (1–100) — the next
 * 100 after these.", with links to the next page and back to the first.
 */
export function countLine(b: Batch): HTMLElement {
  const p = b.page;
  const n = b.items.length;
  const total = `${amountText(p.total)}${p.totalIsLowerBound ? '+' : ''}`;
  const left = p.total - p.to;
  const next = Math.min(left, 100);
  return h(
    'nav',
    { class: 'batch-count', 'aria-label': 'Pages of this group' },
    h(
      'p',
      { id: 'batch-count', role: 'status' },
      n === 0
        ? 'Nothing in this group is waiting for your approval.'
        : `${n} of ${total} you can approve in this group (${amountText(p.from)}–${amountText(p.to)})${p.nextAfter ? ` — the next ${next} after these` : ''}.`,
    ),
    h(
      'p',
      { class: 'pager' },
      p.from > 1
        ? h('a', { class: 'btn btn-small', id: 'batch-first', href: pageHref(b, null) }, '← First page')
        : null,
      ' ',
      p.nextAfter
        ? h(
            'a',
            { class: 'btn btn-small', id: 'batch-next', href: pageHref(b, p.nextAfter) },
            `Next ${next} (${amountText(p.to + 1)}–${amountText(p.to + next)}) →`,
          )
        : null,
    ),
  );
}

/** Notices, the outcome once sent, and what warns about the page as a whole before sending. */
export function alerts(s: BatchState, b: Batch): Child[] {
  const dupes = s.result ? [] : sameActionGroups(b.items);
  const numbers = itemNumbers(b);
  const shared = s.result ? [] : subjectGroups(b, b.items);
  return [
    s.notices.map((t) =>
      h(
        'div',
        { class: 'alert alert-warn', role: 'alert' },
        h('p', null, t),
        h('p', null, h('a', { class: 'btn btn-small', href: window.location.href }, 'Reload the batch')),
      ),
    ),
    s.result
      ? h(
          'div',
          {
            class: `alert ${s.result.results.some((x) => !x.ok) ? 'alert-warn' : 'alert-ok'}`,
            role: 'status',
            id: 'batch-result',
            tabindex: '-1',
          },
          h('p', { id: 'batch-summary' }, outcomeSummary(s)),
          h('p', null, h('a', { class: 'btn btn-small', href: '/' }, 'Back to the queue')),
        )
      : null,
    dupes.length
      ? h(
          'div',
          { class: 'alert alert-warn', role: 'alert', id: 'same-actions' },
          dupes.map((g) =>
            h(
              'p',
              null,
              `Items ${listText(g.ids.map((id) => numbers.get(id) ?? '?'))} are the same action (`,
              h('code', null, g.tool),
              ' with the same arguments). Approving all of them runs it more than once — tick only the ones you mean.',
            ),
          ),
        )
      : null,
    shared.length
      ? h(
          'div',
          { class: 'alert alert-warn', role: 'alert', id: 'same-subjects' },
          h('p', null, 'Several requests in this list act on the same thing:'),
          h(
            'ul',
            null,
            shared.slice(0, 10).map((g) => h('li', null, `${subjectGroupText(g)}.`)),
          ),
          shared.length > 10 ? h('p', null, `… and ${shared.length - 10} more.`) : null,
        )
      : null,
  ];
}

/** The requests of the group left out, each with why. */
export function excludedList(b: Batch): HTMLElement | null {
  return b.excludedCount
    ? h(
        'details',
        { class: 'excluded' },
        h('summary', null, `${b.excludedCount} in this group you cannot approve now`),
        h(
          'ul',
          null,
          b.excluded.map((x) =>
            h('li', null, h('a', { href: `/approvals/${encodeURIComponent(x.id)}` }, x.tool), ` — ${x.reason}`),
          ),
        ),
        b.excludedCount > b.excluded.length ? h('p', null, `… and ${b.excludedCount - b.excluded.length} more.`) : null,
      )
    : null;
}

/** The approve-tier items without warnings: the only ones the page may tick in one go. */
export function cleanIds(b: Batch): string[] {
  return b.items.filter((r) => r.tier === 'approve' && (b.notes[r.id]?.warnings.length ?? 0) === 0).map((r) => r.id);
}

/** Tick or untick in one go (never escalate-tier or warned items), and the button that sends the ticked ones. */
export function buttons(s: BatchState, b: Batch, act: PageActions): HTMLElement | null {
  const n = b.items.length;
  if (n === 0 || s.result) return null;
  const k = b.items.filter((r) => s.picked.has(r.id)).length;
  const clean = cleanIds(b).filter((id) => !s.picked.has(id)).length;
  return h(
    'div',
    { class: 'decide-buttons' },
    h(
      'button',
      {
        type: 'button',
        class: 'btn btn-primary',
        id: 'approve-all',
        disabled: s.busy || k === 0,
        'aria-keyshortcuts': 'a',
        onClick: () => act.approve(),
      },
      k === 0 ? 'Tick the requests to approve' : k === n ? `Approve all ${n} ` : `Approve ${k} of ${n} `,
      k === 0 ? null : h('kbd', { 'aria-hidden': 'true' }, 'A'),
    ),
    clean
      ? h(
          'button',
          { type: 'button', class: 'btn', id: 'tick-clean', disabled: s.busy, onClick: () => act.tickClean() },
          `Tick the ${clean} approve-tier request${clean === 1 ? '' : 's'} without warnings`,
        )
      : null,
    k
      ? h('button', { type: 'button', class: 'btn', id: 'untick-all', onClick: () => act.untickAll() }, 'Untick all')
      : null,
  );
}
