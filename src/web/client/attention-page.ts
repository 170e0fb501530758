import { ApiError } from './api.ts';
import { attentionPage, isFailedApproval, setAttentionCount, type FailedApproval } from './attention-api.ts';
import { byId, debounce, h, put } from './dom.ts';
import { argsLine, hiddenChip, short } from './format.ts';
import { live } from './live.ts';
import { lookalikeChip } from './queue-row.ts';
import { startShell } from './shell.ts';
import { when } from './time.ts';
import { me, type Me } from './types.ts';

/**
 * "Needs attention": actions the reviewer approved (an operator: anyone's) that failed when they ran,
 * newest first — the tool, the arguments (hidden-character and look-alike chips as in the queue),
 * the error, who approved and when it failed, with links to the card and the thread. A failure that
 * happens while the page is open is added at the top without a reload; rows already shown stay
 * where they are, so focus and reading place are kept.
 */

const PAGE = 50;
const viewer = me();
const container = byId('attention');
const summary = byId('attention-summary');
const shown = new Map<string, FailedApproval>();
let list: HTMLOListElement | null = null;
let nextCursor: string | null = null;
let total = 0;

function approvedBy(f: FailedApproval, who: Me): string {
  const names = f.approvers.map((a) => (a.id === who.id ? 'you' : a.name));
  if (names.length === 0) return 'approved by the timeout default';
  return `approved by ${names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`}`;
}

function row(f: FailedApproval, fresh: boolean): HTMLLIElement {
  const r = f.request;
  const card = `/approvals/${encodeURIComponent(r.id)}`;
  return h(
    'li',
    { class: `qitem attention-item${fresh ? ' is-new' : ''}`, 'data-id': r.id },
    h(
      'div',
      { class: 'qmain' },
      h(
        'h2',
        { class: 'qtitle' },
        h('a', { class: 'qlink', href: card }, r.tool),
        fresh ? h('span', { class: 'chip chip-new' }, 'new') : null,
        ' ',
        hiddenChip(r.args),
        ' ',
        lookalikeChip(r.args),
      ),
      h('p', { class: 'qargs mono' }, argsLine(r.args)),
      h('p', { class: 'attention-error' }, h('strong', {}, 'Failed: '), f.error),
      h(
        'p',
        { class: 'attention-who muted' },
        `${approvedBy(f, viewer)} · failed `,
        h('time', { datetime: f.failedAt }, when(f.failedAt)),
      ),
    ),
    h(
      'div',
      { class: 'qside' },
      h('p', {}, h('a', { href: card, class: 'card-link' }, 'Open the request')),
      h(
        'p',
        { class: 'qthread' },
        h(
          'a',
          { href: `/threads/${encodeURIComponent(r.threadId)}`, class: 'thread-link' },
          'thread ',
          short(r.threadId, 14),
        ),
      ),
    ),
  );
}

function setSummary(): void {
  const whose = viewer.operator ? 'Approved actions' : 'Actions you approved or decided on';
  const n = total === 1 ? '1 failed approval' : `${total} failed approvals`;
  summary.textContent = `${n}. ${whose} that failed when they ran, newest first.`;
  setAttentionCount(total);
}

function moreButton(): HTMLElement | null {
  if (!nextCursor) return null;
  return h(
    'button',
    { class: 'btn', id: 'attention-more', type: 'button', onClick: () => void loadMore() },
    'Show more',
  );
}

function render(): void {
  setSummary();
  if (shown.size === 0) {
    list = null;
    put(
      container,
      h(
        'div',
        { class: 'empty' },
        h('p', {}, 'Nothing needs your attention.'),
        h('p', { class: 'muted' }, 'When an action you approved fails when it runs, it shows here with its error.'),
      ),
    );
    return;
  }
  list = h(
    'ol',
    { class: 'qlist', id: 'attention-list', 'aria-label': 'Failed approvals' },
    [...shown.values()].map((f) => row(f, false)),
  );
  put(container, list, moreButton());
}

async function loadMore(): Promise<void> {
  const page = await attentionPage(PAGE, nextCursor);
  for (const f of page.items) if (!shown.has(f.request.id)) shown.set(f.request.id, f);
  nextCursor = page.nextCursor;
  total = page.count;
  const focusMore = document.activeElement?.id === 'attention-more';
  render();
  if (focusMore)
    (document.getElementById('attention-more') ?? list?.querySelector<HTMLElement>('li:last-child a.qlink'))?.focus();
}

/** A failure arrived: put the new ones at the top, leaving the rows already shown (and focus) as they are. */
async function addNew(): Promise<void> {
  const page = await attentionPage(PAGE);
  total = page.count;
  const fresh = page.items.filter((f) => !shown.has(f.request.id));
  if (fresh.length === 0) return setSummary();
  for (const f of fresh) shown.set(f.request.id, f);
  if (!list) return render();
  setSummary();
  // Newest first: the new rows go above the first row shown, in their order.
  const first = list.firstElementChild;
  for (const f of fresh) list.insertBefore(row(f, true), first);
}

function fail(err: unknown): void {
  put(
    container,
    h(
      'p',
      { class: 'alert alert-error', role: 'alert' },
      err instanceof ApiError ? err.message : 'The list could not be loaded; reload the page.',
    ),
  );
}

startShell();
loadMore().catch(fail);
const l = live();
const refresh = debounce(() => void addNew().catch(fail), 200);
l.on((e) => {
  if (isFailedApproval(e)) refresh();
});
l.onResync(refresh);
