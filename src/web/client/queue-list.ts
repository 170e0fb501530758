import { h, put } from './dom.ts';
import { short } from './format.ts';
import type { QueueItem, QueueView, Sort } from './queue-api.ts';
import { markDecided, queueRow } from './queue-row.ts';
import type { Me } from './types.ts';

/**
 * The queue's rows on the page, keyed by request id. Changes land in place — a row updated,
 * greyed when decided, inserted where the sort puts it — and every change keeps the reviewer's
 * place: the focused row keeps focus, and what they are looking at does not move on the screen.
 */

/** Sort keys as the server orders (src/store/sql/requests.ts): a negative number puts `a` first. */
export function compareIn(sort: Sort): (a: QueueItem, b: QueueItem) => number {
  const byId = (a: QueueItem, b: QueueItem) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  if (sort === 'expiry') return (a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt) || byId(a, b);
  if (sort === 'newest') return (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || byId(b, a);
  const amount = (r: QueueItem) => (typeof r.args.amount === 'number' ? r.args.amount : null);
  return (a, b) => {
    const x = amount(a);
    const y = amount(b);
    if (x === null || y === null) return x === y ? byId(b, a) : x === null ? 1 : -1;
    return y - x || byId(b, a);
  };
}

/** The row the reviewer is looking at: the focused one if on screen, else the first row on screen. */
function anchorRow(list: HTMLElement): HTMLElement | undefined {
  const focused = document.activeElement?.closest<HTMLElement>('li.qitem');
  const onScreen = (el: Element) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  };
  if (focused && list.contains(focused) && onScreen(focused)) return focused;
  return [...list.querySelectorAll<HTMLElement>('li.qitem')].find(onScreen);
}

/**
 * Run `change` (which adds, removes or resizes rows) without moving what the reviewer looks at:
 * the anchor row's position on screen is measured before and restored after. The page sets
 * `overflow-anchor: none` on the list so the browser's own anchoring does not add to it.
 */
export function keepPlace(list: HTMLElement, change: () => void): void {
  const anchor = anchorRow(list);
  const before = anchor?.getBoundingClientRect().top;
  const focusedId = document.activeElement?.closest<HTMLElement>('li.qitem')?.dataset.id;
  change();
  // A replaced row hands its focus to its successor.
  if (focusedId && !document.activeElement?.closest('li.qitem')) focusRow(list, focusedId);
  if (anchor?.isConnected && before !== undefined) {
    const delta = anchor.getBoundingClientRect().top - before;
    if (delta !== 0) window.scrollBy(0, delta);
  }
}

/** Focus the link of request `id`'s row, without scrolling; false when the row is gone. */
export function focusRow(list: HTMLElement, id: string): boolean {
  const link = list.querySelector<HTMLAnchorElement>(`li.qitem[data-id="${CSS.escape(id)}"] a.qlink`);
  link?.focus({ preventScroll: true });
  return link !== null;
}

/** The rows and the items behind them, for one view. */
export interface QueueList {
  /** The items shown, in order (decided ones stay until let go). */
  items: QueueItem[];
  /** Show `items` from scratch (a new view, or a reload). */
  reset(items: QueueItem[], me: Me): void;
  /** Add a following page at the end. */
  append(items: QueueItem[], me: Me): void;
  /** A request as it is now: updated in place, greyed when no longer pending. */
  update(item: QueueItem, names: Record<string, string>, me: Me): void;
  /** A new request, placed where the sort puts it; false when it belongs after the rows loaded. */
  insert(item: QueueItem, me: Me, hasMore: boolean): boolean;
  /** Take a row away (it left the view), keeping the reviewer's place. */
  remove(id: string): void;
  has(id: string): boolean;
}

function groupKey(v: QueueView, r: QueueItem): string {
  return v.group === 'thread' ? r.threadId : r.tool;
}

function groups(v: QueueView, rows: QueueItem[], row: (r: QueueItem) => HTMLElement): HTMLElement[] {
  const by = new Map<string, QueueItem[]>();
  for (const r of rows) by.set(groupKey(v, r), [...(by.get(groupKey(v, r)) ?? []), r]);
  const label = v.group === 'thread' ? 'Thread' : 'Tool';
  return [...by.entries()].map(([key, rs]) => {
    const batchHref = `/batch?${new URLSearchParams(v.group === 'thread' ? { threadId: key } : { tool: key }).toString()}`;
    return h(
      'section',
      { class: 'qgroup', 'aria-label': `${label} ${key}` },
      h(
        'header',
        { class: 'qgroup-head' },
        h(
          'h2',
          null,
          `${label} `,
          v.group === 'thread' ? short(key, 18) : h('code', null, key),
          h('span', { class: 'muted' }, ` · ${rs.length} shown`),
        ),
        rs.length > 1 ? h('a', { class: 'btn btn-small', href: batchHref }, `Review ${rs.length} together`) : null,
      ),
      h('ol', { class: 'qlist' }, rs.map(row)),
    );
  });
}

/**
 * The queue list inside `container`, for view `v`. Ungrouped, rows change one at a time in
 * place; grouped, the groups are drawn again from the items held here (no refetch), keeping place.
 */
export function queueList(container: HTMLElement, v: QueueView, onExpire: () => void): QueueList {
  let items: QueueItem[] = [];
  const fresh = new Set<string>();
  let me: Me;
  const rowOf = (id: string) => container.querySelector<HTMLElement>(`li.qitem[data-id="${CSS.escape(id)}"]`);
  const build = (r: QueueItem) => queueRow(r, me, { fresh: fresh.has(r.id), onExpire });
  const draw = () => {
    if (v.group) put(container, groups(v, items, build));
    else put(container, h('ol', { class: 'qlist', 'aria-label': 'Pending requests' }, items.map(build)));
  };
  const redraw = () => keepPlace(container, draw);
  const list: QueueList = {
    get items() {
      return items;
    },
    reset(next, who) {
      me = who;
      items = [...next];
      redraw();
    },
    append(more, who) {
      me = who;
      const known = new Set(items.map((r) => r.id));
      const add = more.filter((r) => !known.has(r.id));
      items.push(...add);
      if (v.group) return redraw();
      container.querySelector('ol.qlist')?.append(...add.map(build));
    },
    update(item, names, who) {
      me = who;
      const at = items.findIndex((r) => r.id === item.id);
      if (at < 0) return;
      items[at] = item;
      const old = rowOf(item.id);
      if (!old || v.group) return redraw();
      keepPlace(container, () => {
        if (item.status === 'pending') old.replaceWith(build(item));
        else markDecided(old, item, names, me);
      });
    },
    insert(item, who, hasMore) {
      me = who;
      const cmp = compareIn(v.sort);
      const at = items.findIndex((r) => cmp(item, r) < 0);
      if (at < 0 && hasMore) return false;
      fresh.add(item.id);
      window.setTimeout(() => {
        fresh.delete(item.id);
        rowOf(item.id)?.classList.remove('is-new');
      }, 8000);
      const before = at < 0 ? undefined : items[at];
      items.splice(at < 0 ? items.length : at, 0, item);
      const next = before && rowOf(before.id);
      if (v.group || !next) {
        if (v.group || !container.querySelector('ol.qlist')) return (redraw(), true);
        keepPlace(container, () => container.querySelector('ol.qlist')!.append(build(item)));
        return true;
      }
      keepPlace(container, () => next.before(build(item)));
      return true;
    },
    remove(id) {
      items = items.filter((r) => r.id !== id);
      const row = rowOf(id);
      if (v.group) return redraw();
      if (row) keepPlace(container, () => row.remove());
    },
    has: (id) => items.some((r) => r.id === id),
  };
  return list;
}
