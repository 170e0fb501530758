import { debounce, toast } from './dom.ts';
import type { Live } from './live.ts';
import type { QueueItem, QueuePage, QueueView } from './queue-api.ts';
import type { QueueList } from './queue-list.ts';
import type { Me } from './types.ts';

/**
 * Live updates of the queue without refetching it: an event names a request; the page fetches
 * that request alone (with the view's filters) and patches its row — updated, greyed with who
 * decided it, inserted where the sort puts it, or taken away once the reviewer is not on it.
 */

/** What live patching needs from the page. */
export interface LivePatchingOptions {
  live: Live;
  me: Me;
  container: HTMLElement;
  view(): QueueView;
  list(): QueueList;
  /** More pages follow the rows loaded: an arrival sorting after them waits for "Show more". */
  hasMore(): boolean;
  /** Merge reviewer names into the page's, returning them all. */
  names(more: Record<string, string>): Record<string, string>;
  refreshCount(): void;
  /** Reload the view's first page (after a reconnect: events are not replayed). */
  reload(): void;
  fetch(v: QueueView, ids: readonly string[]): Promise<QueuePage>;
}

/** How long a decided row stays, greyed, before it goes (unless the reviewer is on it). */
const LINGER_MS = 8000;

/** Listen to the live stream and keep the queue's rows current, one request at a time. */
export function startLivePatching(o: LivePatchingOptions): void {
  const pending = new Set<string>();
  let running = false;

  const rowOf = (id: string) => o.container.querySelector<HTMLElement>(`li.qitem[data-id="${CSS.escape(id)}"]`);
  // A row the reviewer is on stays until they move off it: nothing vanishes under the cursor.
  const letGo = (id: string, list: QueueList) => {
    window.setTimeout(() => {
      const row = rowOf(id);
      if (!row || !row.classList.contains('is-decided')) return;
      if (!row.contains(document.activeElement)) return list.remove(id);
      row.addEventListener('focusout', () => window.setTimeout(() => list.remove(id), 0), { once: true });
    }, LINGER_MS);
  };

  const apply = (id: string, item: QueueItem | undefined, names: Record<string, string>) => {
    const list = o.list();
    if (!item) {
      // It no longer matches the view (or is not the reviewer's to see): out, unless they are on it.
      if (list.has(id) && !rowOf(id)?.contains(document.activeElement)) list.remove(id);
      return;
    }
    if (list.has(id)) {
      list.update(item, names, o.me);
      if (item.status !== 'pending') letGo(id, list);
      return;
    }
    if (item.status !== 'pending') return;
    list.insert(item, o.me, o.hasMore());
    toast(`New request: ${item.tool} (${item.requiredRole})`);
  };

  const flush = async () => {
    if (running) return;
    running = true;
    try {
      while (pending.size > 0) {
        const ids = [...pending].slice(0, 100);
        for (const id of ids) pending.delete(id);
        const v = o.view();
        const page = await o.fetch(v, ids);
        // The reviewer changed the view meanwhile: the new view loads itself.
        if (v !== o.view()) continue;
        const names = o.names(page.names);
        const got = new Map(page.items.map((r) => [r.id, r]));
        for (const id of ids) apply(id, got.get(id), names);
      }
    } catch {
      // Missed patches come back with the next event or the reload after a reconnect.
    } finally {
      running = false;
      if (pending.size > 0) void flush();
    }
  };

  const flushSoon = debounce(() => void flush(), 100);
  const countSoon = debounce(() => o.refreshCount(), 300);
  o.live.on((e) => {
    if (!e.type.startsWith('approval.') || !e.requestId) return;
    pending.add(e.requestId);
    flushSoon();
    countSoon();
  });
  o.live.onResync(() => o.reload());
}
