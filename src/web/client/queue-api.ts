import { api } from './api.ts';
import type { RequestSummary } from './types.ts';

/**
 * The queue's calls to the API: a page of the current view, its count (one COUNT on the server,
 * never every request), and a few requests by id, which is how a live event patches one row.
 */

/** A decision a reviewer takes. */
export type DecisionKind = 'approve' | 'edit' | 'reject' | 'respond';

/** A listed request, with what the signed-in reviewer may decide on it now. */
export interface QueueItem extends RequestSummary {
  allowedDecisions: DecisionKind[];
}

/** A page of the queue: items, reviewer names by id, and the cursor of the next page. */
export interface QueuePage {
  items: QueueItem[];
  names: Record<string, string>;
  nextCursor: string | null;
}

/** The sorts the queue offers. */
export const SORTS = {
  expiry: 'soonest expiry first',
  newest: 'newest first',
  amount: 'largest amount first',
} as const;
export type Sort = keyof typeof SORTS;

/** What the reviewer is looking at: search box, filters, sort and grouping (all kept in the URL). */
export interface QueueView {
  search: string;
  role: string;
  tool: string;
  tier: string;
  sort: Sort;
  group: '' | 'thread' | 'tool';
}

/** Requests per page. */
export const PAGE_SIZE = 50;

const SUBJECT = /^([A-Za-z_][A-Za-z0-9_]*):(.+)$/;

/**
 * The search box read as the API's filters: `name:value` words (`orderId:ORD-7`) are argument
 * filters, the rest is free text.
 * @example
 * searchTerms('orderId:ORD-7 damaged') // { text: 'damaged', args: { orderId: 'ORD-7' } }
 */
export function searchTerms(search: string): { text: string; args: Record<string, string> } {
  const args: Record<string, string> = {};
  const words: string[] = [];
  for (const w of search.trim().split(/\s+/).filter(Boolean)) {
    const m = SUBJECT.exec(w);
    if (m) args[m[1]!] = m[2]!;
    else words.push(w);
  }
  return { text: words.join(' '), args };
}

function filterParams(v: QueueView | null): URLSearchParams {
  const p = new URLSearchParams({ status: 'pending' });
  if (!v) return p;
  const { text, args } = searchTerms(v.search);
  if (text) p.set('q', text);
  for (const [k, x] of Object.entries(args)) p.set(`arg.${k}`, x);
  if (v.role) p.set('role', v.role);
  if (v.tool) p.set('tool', v.tool);
  if (v.tier) p.set('tier', v.tier);
  return p;
}

/** One page of the view, from `cursor` (the previous page's nextCursor) or from the top. */
export function queuePage(v: QueueView, cursor: string | null): Promise<QueuePage> {
  const p = filterParams(v);
  p.set('order', v.sort);
  p.set('limit', String(PAGE_SIZE));
  if (cursor) p.set('cursor', cursor);
  return api<QueuePage>(`/api/v1/approvals?${p.toString()}`);
}

/** How many pending requests the view matches (`null`: all the reviewer may see). */
export async function queueCount(v: QueueView | null): Promise<number> {
  return (await api<{ count: number }>(`/api/v1/approvals/count?${filterParams(v).toString()}`)).count;
}

/**
 * These requests as they are now, whatever their status, if they still match the view's filters;
 * a request missing from the answer no longer belongs in the view.
 */
export async function queueItemsById(v: QueueView, ids: readonly string[]): Promise<QueuePage> {
  const p = filterParams(v);
  p.delete('status');
  p.set('ids', ids.join(','));
  p.set('limit', String(ids.length));
  return api<QueuePage>(`/api/v1/approvals?${p.toString()}`);
}
