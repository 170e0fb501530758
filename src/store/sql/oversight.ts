import type { OversightStoreOps } from '../types.ts';
import { num, numOrNull, type OpShape, type SqlExecutor } from './executor.ts';

/**
 * The reads behind the oversight figures (docs/metrics.md), one SQL text for both backends:
 * calls that ran without a person, threads that finished without one, and when reviewers opened cards.
 */
export function oversightOps(db: SqlExecutor): OversightStoreOps {
  return {
    async countAutoCalls(since, until) {
      // Executions without a request are the calls that ran at auto or notify. A tool that asked a
      // question of its own leaves an `abandoned` attempt before the one that ran: one call, counted once.
      const rows = await db.all(
        `SELECT tool, COALESCE(tier, 'auto') AS tier, COUNT(*) AS n FROM il_executions
         WHERE request_id IS NULL AND status <> 'abandoned' AND created_at >= $1 AND created_at < $2
         GROUP BY tool, COALESCE(tier, 'auto')`,
        [since, until],
      );
      return rows.map((r) => ({ tool: String(r.tool), tier: String(r.tier), count: num(r.n) }));
    },
    async countFinishedThreads(since, until) {
      // `paused` is set whenever a thread waits on a person, and a tree's root waits while its sub-agent
      // does. Child threads (sub-agents, graph nodes) carry rootThreadId and count with their root.
      const rows = await db.all(
        `SELECT COUNT(*) AS finished, SUM(CASE WHEN paused = 0 THEN 1 ELSE 0 END) AS alone FROM il_threads
         WHERE status = 'completed' AND updated_at >= $1 AND updated_at < $2 AND metadata NOT LIKE '%"rootThreadId"%'`,
        [since, until],
      );
      return { finished: num(rows[0]?.finished ?? 0), withoutPerson: num(rows[0]?.alone ?? 0) };
    },
    async recordCardOpen(requestId, reviewer, at) {
      await db.send(
        `INSERT INTO il_card_opens (request_id, reviewer, opened_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [requestId, reviewer, at],
      );
    },
    async listApprovalTimings(since, until) {
      const rows = await db.all(
        `SELECT v.reviewer, v.request_id, r.planted, o.opened_at, v.created_at
         FROM il_votes v JOIN il_requests r ON r.id = v.request_id
         LEFT JOIN il_card_opens o ON o.request_id = v.request_id AND o.reviewer = v.reviewer
         WHERE v.type IN ('approve', 'edit') AND v.created_at >= $1 AND v.created_at < $2`,
        [since, until],
      );
      return rows.map((r) => ({
        reviewer: String(r.reviewer),
        requestId: String(r.request_id),
        planted: num(r.planted) === 1,
        openedAt: numOrNull(r.opened_at),
        decidedAt: num(r.created_at),
      }));
    },
  };
}

export const oversightShapes: { [K in keyof ReturnType<typeof oversightOps>]: OpShape } = {
  countAutoCalls: 'read',
  countFinishedThreads: 'read',
  recordCardOpen: 'write',
  listApprovalTimings: 'read',
};
