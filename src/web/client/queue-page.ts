import { ApiError } from './api.ts';
import { byId, debounce, h, put } from './dom.ts';
import { addShortcuts } from './keys.ts';
import { live } from './live.ts';
import { PAGE_SIZE, queueCount, queueItemsById, queuePage, SORTS, type QueueView, type Sort } from './queue-api.ts';
import { focusRow, queueList, type QueueList } from './queue-list.ts';
import { startLivePatching } from './queue-live.ts';
import { setQueueCount, startShell } from './shell.ts';
import { me } from './types.ts';

/**
 * The approval queue: a page at a time of the pending requests the reviewer may see — searched,
 * filtered, sorted, optionally grouped — with the count from the server. Live events patch the
 * rows they concern and keep the reviewer's place (see queue-list.ts).
 */

const container = byId('queue');
const summary = byId('queue-summary');
const form = byId<HTMLFormElement>('filters');
const selects = {
  role: byId<HTMLSelectElement>('filter-role'),
  tool: byId<HTMLSelectElement>('filter-tool'),
  tier: byId<HTMLSelectElement>('filter-tier'),
  group: byId<HTMLSelectElement>('filter-group'),
};
const myself = me();

/** The search box and the sort, ahead of the filters the page's shell carries. */
function addControls(): { search: HTMLInputElement; sort: HTMLSelectElement } {
  const search = h('input', {
    type: 'search',
    name: 'q',
    id: 'filter-q',
    maxlength: 300,
    autocomplete: 'off',
    placeholder: 'text, or orderId:ORD-7',
  });
  const sort = h(
    'select',
    { name: 'sort', id: 'filter-sort' },
    Object.entries(SORTS).map(([v, label]) =>
      h(
        'option',
        { value: v },
        label.replace(/^./, (c) => c.toUpperCase()),
      ),
    ),
  );
  form.prepend(h('label', { class: 'filter-search' }, 'Search', search), h('label', null, 'Sort', sort));
  return { search, sort };
}

const controls = addControls();
const moreBox = h('div', { class: 'qmore' });
container.after(moreBox);

function readView(): QueueView {
  const q = new URLSearchParams(window.location.search);
  const group = q.get('group');
  const sort = q.get('sort');
  // `?subject=orderId:ORD-7` (a link to one subject's requests) lands in the search box.
  const search = [q.get('subject'), q.get('q')].filter(Boolean).join(' ');
  return {
    search,
    role: q.get('role') ?? '',
    tool: q.get('tool') ?? '',
    tier: q.get('tier') ?? '',
    sort: sort === 'newest' || sort === 'amount' ? sort : 'expiry',
    group: group === 'thread' || group === 'tool' ? group : '',
  };
}

let view = readView();
let list: QueueList = queueList(container, view, () => undefined);
let cursor: string | null = null;
let names: Record<string, string> = {};
let total = 0;
let generation = 0;

/** Options of a filter select: what the reviewer has and the rows show, keeping the chosen one. */
function fillOptions(select: HTMLSelectElement, values: Iterable<string>, all: string, chosen: string): void {
  const set = [...new Set([...values, ...(chosen ? [chosen] : [])])].sort();
  put(
    select,
    h('option', { value: '' }, all),
    set.map((v) => h('option', { value: v }, v)),
  );
  select.value = chosen;
}

function showControls(): void {
  const items = list.items;
  fillOptions(
    selects.role,
    [...myself.roles.filter((x) => x !== 'operator'), ...items.map((r) => r.requiredRole)],
    'All roles',
    view.role,
  );
  fillOptions(
    selects.tool,
    items.map((r) => r.tool),
    'All tools',
    view.tool,
  );
  selects.tier.value = view.tier;
  selects.group.value = view.group;
  controls.sort.value = view.sort;
  if (document.activeElement !== controls.search) controls.search.value = view.search;
}

function filtered(): boolean {
  return Boolean(view.search.trim() || view.role || view.tool || view.tier);
}

function showSummary(): void {
  const head = document.getElementById('queue-count-head');
  if (head) head.textContent = String(total);
  const shown = list.items.filter((r) => r.status === 'pending').length;
  const soon = list.items.filter((r) => Date.parse(r.expiresAt) - Date.now() < 5 * 60_000).length;
  summary.textContent =
    `${total} pending${filtered() ? ' match' : ''} · showing ${shown}` +
    `${soon ? ` · ${soon} expiring within 5 minutes` : ''} · ${SORTS[view.sort]}.`;
  const left = Math.max(0, total - shown);
  put(
    moreBox,
    cursor
      ? h(
          'button',
          { type: 'button', class: 'btn', id: 'queue-more', onClick: () => void loadMore(true) },
          `Show ${Math.min(PAGE_SIZE, left || PAGE_SIZE)} more (${left} not shown)`,
        )
      : null,
  );
}

function showEmpty(): void {
  put(
    container,
    h(
      'div',
      { class: 'empty' },
      h('p', null, filtered() ? 'No pending request matches this search.' : 'Nothing is waiting for you.'),
      h('p', { class: 'muted' }, 'New requests appear here as soon as an agent pauses.'),
    ),
  );
}

function showError(err: unknown): void {
  put(
    container,
    h(
      'p',
      { class: 'alert alert-error', role: 'alert' },
      err instanceof ApiError ? err.message : 'The queue could not be loaded.',
    ),
  );
}

/** The count of the view, and of everything the reviewer may see for the top bar: two COUNTs, no rows. */
async function refreshCount(): Promise<void> {
  const [mine, all] = await Promise.all([queueCount(view), filtered() ? queueCount(null) : undefined]);
  total = mine;
  setQueueCount(all ?? mine);
  showSummary();
}

/** The first page of the view, from scratch (a new search, sort or filter; a reconnect). */
async function loadFirst(): Promise<void> {
  const g = ++generation;
  const focused = document.activeElement?.closest<HTMLElement>('li.qitem')?.dataset.id;
  try {
    const [page] = await Promise.all([queuePage(view, null), refreshCount()]);
    if (g !== generation) return;
    cursor = page.nextCursor;
    names = { ...names, ...page.names };
    if (page.items.length === 0) showEmpty();
    else list.reset(page.items, myself);
    if (focused) focusRow(container, focused);
    showControls();
    showSummary();
  } catch (err) {
    showError(err);
  }
}

/** The next page, at the end; `focusFirst` moves focus to its first row (the reviewer asked for it). */
async function loadMore(focusFirst: boolean): Promise<void> {
  if (!cursor) return;
  const g = generation;
  const page = await queuePage(view, cursor);
  if (g !== generation) return;
  cursor = page.nextCursor;
  names = { ...names, ...page.names };
  list.append(page.items, myself);
  if (focusFirst && page.items[0]) focusRow(container, page.items[0].id);
  showControls();
  showSummary();
}

function setView(next: QueueView): void {
  view = next;
  const q = new URLSearchParams();
  if (view.search.trim()) q.set('q', view.search.trim());
  for (const k of ['role', 'tool', 'tier', 'group'] as const) if (view[k]) q.set(k, view[k]);
  if (view.sort !== 'expiry') q.set('sort', view.sort);
  window.history.replaceState(null, '', q.size ? `/?${q.toString()}` : '/');
  list = queueList(container, view, () => undefined);
  cursor = null;
  void loadFirst();
}

function viewFromForm(): QueueView {
  return {
    search: controls.search.value,
    role: selects.role.value,
    tool: selects.tool.value,
    tier: selects.tier.value,
    sort: controls.sort.value as Sort,
    group: (selects.group.value as QueueView['group']) || '',
  };
}

const searchSoon = debounce(() => {
  if (controls.search.value !== view.search) setView(viewFromForm());
}, 300);
controls.search.addEventListener('input', searchSoon);
form.addEventListener('change', (e) => {
  if (e.target !== controls.search) setView(viewFromForm());
});
form.addEventListener('submit', (e) => {
  e.preventDefault();
  setView(viewFromForm());
});

// Live events: fetch only the requests they name, then patch their rows.
startLivePatching({
  live: live(),
  view: () => view,
  list: () => list,
  hasMore: () => cursor !== null,
  me: myself,
  names: (more) => (names = { ...names, ...more }),
  container,
  refreshCount: () => void refreshCount().catch(() => undefined),
  reload: () => void loadFirst(),
  fetch: queueItemsById,
});

/** `j`/`k`: the next or previous row, from the one last focused; at the end, the next page. */
function move(delta: number): void {
  const links = [...container.querySelectorAll<HTMLAnchorElement>('a.qlink')];
  if (links.length === 0) return;
  let at = links.indexOf(document.activeElement as HTMLAnchorElement);
  if (at < 0 && lastFocused) at = links.findIndex((a) => a.closest<HTMLElement>('li')?.dataset.id === lastFocused);
  if (delta > 0 && at === links.length - 1 && cursor) {
    void loadMore(true);
    return;
  }
  const next =
    links[Math.max(0, Math.min(links.length - 1, at < 0 ? (delta > 0 ? 0 : links.length - 1) : at + delta))]!;
  next.focus();
  next.closest('li')?.scrollIntoView({ block: 'nearest' });
}

let lastFocused: string | undefined;
container.addEventListener('focusin', (e) => {
  lastFocused = (e.target as HTMLElement).closest<HTMLElement>('li.qitem')?.dataset.id ?? lastFocused;
});

addShortcuts([
  { key: 'j', label: 'Next request', run: () => move(1) },
  { key: 'k', label: 'Previous request', run: () => move(-1) },
  { key: '/', label: 'Search the queue', run: () => controls.search.focus() },
]);
startShell({ countsItself: true });
void loadFirst();
