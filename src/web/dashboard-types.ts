import type { Rollup } from '../engine/rollup-types.ts';

/**
 * What GET /api/v1/dashboard returns, declared once with no runtime imports: the server builds it
 * (web/dashboard-data.ts) and the metrics page's browser code reads it.
 */
export interface DashboardData {
  /** One of the windows the page offers (`1h`, `24h`, `7d`, `30d`). */
  window: '1h' | '24h' | '7d' | '30d';
  since: string;
  until: string;
  rollup: Omit<Rollup, 'since' | 'until'>;
  /** Pending requests at evenly spaced instants across the window, oldest first. */
  queueDepth: Array<{ at: string; depth: number }>;
  /** Pending now. */
  pendingNow: number;
  /** True when more requests existed than were read for the depth series. */
  truncated: boolean;
  /** Reviewers' names by id: panels name people, never ids (a request an edit proposed has a reviewer as its proposer). */
  names: Record<string, string>;
}
