import { api } from './api.ts';
import { debounce } from './dom.ts';
import type { Live } from './live.ts';
import type { RequestSummary } from './types.ts';

/** An approved action that failed when it ran, as GET /api/v1/attention lists it. */
export interface FailedApproval {
  request: RequestSummary;
  /** The tool's error, masked by the server. */
  error: string;
  failedAt: string;
  approvers: Array<{ id: string; name: string }>;
}

/** One page of the list, and how many there are in all. */
export interface AttentionPage {
  items: FailedApproval[];
  nextCursor: string | null;
  count: number;
}

/** A page of failed approvals (`limit` at most 200), after `cursor` when given. */
export function attentionPage(limit: number, cursor?: string | null): Promise<AttentionPage> {
  const q = new URLSearchParams({ limit: String(limit) });
  if (cursor) q.set('cursor', cursor);
  return api<AttentionPage>(`/api/v1/attention?${q.toString()}`);
}

/** Is this live event a failed execution of an approved request (what changes the list)? */
export function isFailedApproval(e: { type: string; status?: string; requestId?: string | null }): boolean {
  return e.type === 'execution.finished' && e.status === 'failed' && typeof e.requestId === 'string';
}

/** Show `n` in the top bar's "Needs attention (N)", which is there only when N > 0 (or on its own page). */
export function setAttentionCount(n: number): void {
  const link = document.getElementById('attention-link');
  const count = document.getElementById('attention-count');
  if (!link || !count) return;
  count.textContent = String(n);
  link.hidden = n === 0 && link.getAttribute('aria-current') !== 'page';
}

/**
 * Keep the top bar's "Needs attention (N)" current: one COUNT on load, and again when an execution
 * fails (live), or after a reconnect.
 */
export function startAttentionBadge(l: Live): void {
  if (!document.getElementById('attention-link')) return;
  const refresh = () => {
    api<{ count: number }>('/api/v1/attention/count').then(
      (r) => setAttentionCount(r.count),
      () => undefined,
    );
  };
  const later = debounce(refresh, 300);
  refresh();
  l.on((e) => {
    if (isFailedApproval(e)) later();
  });
  l.onResync(later);
}
