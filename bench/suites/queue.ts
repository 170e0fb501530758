/**
 * Suite 5: the approval queue at scale. `pending` requests are bulk-inserted
 * with one INSERT … SELECT (not through the engine); `expired` of them are
 * already past their expiry. Then: the first page of the queue filtered by one
 * role (a common one and a rare one, newest first and soonest-expiring first),
 * and the sweeper applying the timeout default to every expired request.
 */
import { createInterlock, type Store } from '../../src/index.ts';
import { benchPolicy } from '../lib/workload.ts';
import { since, summarize, type Summary } from '../lib/stats.ts';

/** Roles of the bulk queue: 60% supervisor, 30% finance, 9% legal, 1% security. */
export const ROLE_MIX = 'supervisor 60%, finance 30%, legal 9%, security 1%';

export interface QueuePage {
  role: string;
  order: 'newest' | 'expiry';
  items: number;
  latencyMs: Summary;
}

export interface QueueRun {
  label: string;
  backend: 'sqlite' | 'postgres';
  pending: number;
  insertSec: number;
  pages: QueuePage[];
  expired: number;
  sweepSec: number;
  expiredPerSec: number;
}

/** Rows `$5 + 1 … $5 + $1` of the bulk queue; `$2` base time, `$3` rows already expired, `$4` expiry of the rest. */
function bulkInsertSql(backend: 'sqlite' | 'postgres'): string {
  const sqlite = backend === 'sqlite';
  const id = sqlite ? `'apr_bulk_' || printf('%09d', i)` : `'apr_bulk_' || lpad(i::text, 9, '0')`;
  const thread = sqlite ? `'thr_bulk_' || (i % 100000)` : `'thr_bulk_' || (i % 100000)::text`;
  const args = sqlite
    ? `'{"orderId":"ORD-' || i || '","amount":850}'`
    : `'{"orderId":"ORD-' || i::text || '","amount":850}'`;
  const hash = sqlite ? `lower(hex(randomblob(32)))` : `md5(i::text) || md5((i + 1)::text)`;
  const big = (param: string) => (sqlite ? param : `${param}::bigint`);
  const series = sqlite
    ? `(WITH RECURSIVE s(i) AS (SELECT $5 + 1 UNION ALL SELECT i + 1 FROM s WHERE i < $5 + $1) SELECT i FROM s) AS g`
    : `generate_series($5::int + 1, $5::int + $1::int) AS g(i)`;
  return `INSERT INTO il_requests (id, thread_id, checkpoint_id, tool_call_id, tool, args, action_hash, reason, rule_id, tier, role,
      approvals_required, approvals_received, version, status, proposer, evidence, context, on_timeout, escalate_to, trustable,
      resolution, parent_id, superseded_by, created_at, expires_at, updated_at, resolved_at)
    SELECT ${id}, ${thread}, NULL, 'call_' || i, 'issue_refund', ${args}, ${hash}, 'refund over $500', 'large', 'approve',
      CASE WHEN i % 100 < 60 THEN 'supervisor' WHEN i % 100 < 90 THEN 'finance' WHEN i % 100 < 99 THEN 'legal' ELSE 'security' END,
      1, 0, 1, 'pending', 'agent:support', '{"customerMessage":"Please refund order, it arrived broken."}', '{}', 'reject', NULL, 1,
      NULL, NULL, NULL, ${big('$2')} + i, CASE WHEN i <= ${big('$3')} THEN ${big('$2')} + i ELSE ${big('$4')} + i END, ${big('$2')} + i, NULL
    FROM ${series}`;
}

export async function runQueue(
  store: Store,
  opts: { label: string; pending: number; expired: number; samples: number },
): Promise<QueueRun> {
  const backend = store.name;
  const now = Date.now();
  const base = now - opts.pending - 60_000;
  const t0 = performance.now();
  // Chunks keep one statement's memory bounded; each is its own transaction.
  const chunk = 250_000;
  for (let from = 0; from < opts.pending; from += chunk) {
    const n = Math.min(chunk, opts.pending - from);
    await store.unsafeQuery(bulkInsertSql(backend), [n, base, opts.expired, now + 86_400_000, from]);
  }
  // PostgreSQL's autovacuum would analyze a table that grew this much; do it now rather than wait.
  if (backend === 'postgres') await store.unsafeQuery('ANALYZE il_requests');
  const insertSec = since(t0) / 1000;

  const interlock = createInterlock({ store, policy: benchPolicy() });
  const pages: QueuePage[] = [];
  // One common role, one rare role, and a reviewer holding two roles (the queue merges them).
  for (const roles of [['finance'], ['security'], ['finance', 'legal']]) {
    const role = roles.join('+');
    for (const order of ['newest', 'expiry'] as const) {
      const q = { status: 'pending' as const, roles, order, limit: 50 };
      for (let i = 0; i < 10; i++) await interlock.listRequests(q);
      const samples: number[] = [];
      let items = 0;
      for (let i = 0; i < opts.samples; i++) {
        const a = performance.now();
        items = (await interlock.listRequests(q)).items.length;
        samples.push(since(a));
      }
      pages.push({ role, order, items, latencyMs: summarize(samples) });
    }
  }

  const s0 = performance.now();
  const expired = (await interlock.expireDue({ batch: 500 })).length;
  const sweepSec = since(s0) / 1000;
  return {
    label: opts.label,
    backend,
    pending: opts.pending,
    insertSec,
    pages,
    expired,
    sweepSec,
    expiredPerSec: expired / sweepSec,
  };
}
