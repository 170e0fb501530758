import { api } from './api.ts';
import { startAttentionBadge } from './attention-api.ts';
import { debounce } from './dom.ts';
import { addShortcuts } from './keys.ts';
import { live } from './live.ts';
import { startNotifications } from './notifications.ts';
import { queueCount } from './queue-api.ts';
import { me, type RequestSummary } from './types.ts';

/** Most pending requests the queue reads (pages of 500). */
export const QUEUE_LIMIT = 2000;

/** The pending requests the signed-in reviewer may see, soonest expiry first. */
export async function pendingRequests(): Promise<{ items: RequestSummary[]; more: boolean }> {
  const items: RequestSummary[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({ status: 'pending', order: 'expiry', limit: '500' });
    if (cursor) q.set('cursor', cursor);
    const page: { items: RequestSummary[]; nextCursor: string | null } = await api(`/api/v1/approvals?${q.toString()}`);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && items.length < QUEUE_LIMIT);
  return { items, more: cursor !== null };
}

/** Show the queue count in the top bar and the tab title. */
export function setQueueCount(n: number, more = false): void {
  const text = more ? `${n}+` : String(n);
  const badge = document.getElementById('queue-count');
  if (badge) {
    badge.textContent = text;
    badge.dataset.count = String(n);
    badge.setAttribute('aria-label', `${text} pending ${n === 1 ? 'request' : 'requests'}`);
  }
  const base = document.title.replace(/^\(\d+\+?\) /, '');
  document.title = n > 0 ? `(${text}) ${base}` : base;
}

/**
 * What every signed-in page does: keep the queue count current (unless the
 * page counts itself), the global shortcuts, and desktop notifications of new
 * requests for the reviewer who opts in.
 */
export function startShell(opts: { countsItself?: boolean } = {}): void {
  addShortcuts([
    { key: 'g', label: 'Go to the queue', run: () => window.location.assign('/') },
    { key: 'm', label: 'Go to metrics', run: () => window.location.assign('/metrics-dashboard') },
  ]);
  startNotifications(live(), me());
  startAttentionBadge(live());
  if (opts.countsItself) return;
  // One COUNT on the server: the badge never reads the requests themselves.
  const count = () => {
    queueCount(null).then(
      (n) => setQueueCount(n),
      () => undefined,
    );
  };
  const refresh = debounce(count, 300);
  count();
  const l = live();
  l.on((e) => {
    if (e.type.startsWith('approval.')) refresh();
  });
  l.onResync(refresh);
}
