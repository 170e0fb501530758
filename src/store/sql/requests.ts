import type { ApprovalRequest } from '../../core/index.ts';
import { ValidationError } from '../../core/index.ts';
import type { RequestQuery, RequestStoreOps } from '../types.ts';
import {
  fromJson,
  num,
  numOrNull,
  placeholders,
  strOrNull,
  type Dialect,
  type Row,
  type SqlExecutor,
  type OpShape,
} from './executor.ts';

function toRequest(r: Row): ApprovalRequest {
  return {
    id: String(r.id),
    threadId: String(r.thread_id),
    checkpointId: strOrNull(r.checkpoint_id),
    toolCallId: strOrNull(r.tool_call_id),
    tool: String(r.tool),
    args: fromJson(r.args),
    actionHash: String(r.action_hash),
    reason: String(r.reason),
    ruleId: String(r.rule_id),
    tier: r.tier as ApprovalRequest['tier'],
    role: String(r.role),
    approvalsRequired: num(r.approvals_required),
    approvalsReceived: num(r.approvals_received),
    version: num(r.version),
    status: r.status as ApprovalRequest['status'],
    proposer: String(r.proposer),
    evidence: fromJson(r.evidence),
    context: fromJson(r.context),
    onTimeout: r.on_timeout as ApprovalRequest['onTimeout'],
    escalateTo: r.escalate_to === null || r.escalate_to === undefined ? null : fromJson(r.escalate_to),
    trustable: num(r.trustable) === 1,
    resolution: r.resolution === null || r.resolution === undefined ? null : fromJson(r.resolution),
    parentId: strOrNull(r.parent_id),
    supersededBy: strOrNull(r.superseded_by),
    createdAt: num(r.created_at),
    expiresAt: num(r.expires_at),
    updatedAt: num(r.updated_at),
    resolvedAt: numOrNull(r.resolved_at),
    ...(num(r.planted ?? 0) === 1 ? { planted: true } : {}),
    ...(typeof r.decisions === 'string'
      ? { decisions: fromJson<ApprovalRequest['decisions'] & object>(r.decisions) }
      : {}),
  };
}

// A cursor names its order, so one from a `newest` page cannot page an `expiry` listing.
function encodeCursor(order: 'newest' | 'expiry', a: number, id: string): string {
  return Buffer.from(`${order}:${a}:${id}`).toString('base64url');
}

function decodeCursor(c: string, order: 'newest' | 'expiry'): [number, string] {
  const m = /^(newest|expiry):(\d+):(.+)$/.exec(Buffer.from(c, 'base64url').toString());
  if (!m || m[1] !== order) {
    throw new ValidationError(
      m
        ? `This cursor pages the "${m[1]}" order; request the same order it came from, or start again without a cursor.`
        : 'The cursor is not one this API returned; pass nextCursor from the previous page unchanged.',
      [{ path: 'cursor', message: m ? 'order mismatch' : 'malformed' }],
    );
  }
  return [Number(m[2]), m[3]!];
}

/** A request's new state, guarded by the version it was read at. */
const UPDATE_REQUEST = `UPDATE il_requests SET args = $3, action_hash = $4, approvals_received = $5, version = $6, status = $7,
    resolution = $8, superseded_by = $9, updated_at = $10, resolved_at = $11, tier = $12, role = $13,
    approvals_required = $14, expires_at = $15
  WHERE id = $1 AND version = $2`;

function updateParams(r: ApprovalRequest, expectedVersion: number): unknown[] {
  return [
    r.id,
    expectedVersion,
    JSON.stringify(r.args),
    r.actionHash,
    r.approvalsReceived,
    r.version,
    r.status,
    r.resolution === null ? null : JSON.stringify(r.resolution),
    r.supersededBy,
    r.updatedAt,
    r.resolvedAt,
    r.tier,
    r.role,
    r.approvalsRequired,
    r.expiresAt,
  ];
}

const INSERT_REQUEST = `INSERT INTO il_requests (id, thread_id, checkpoint_id, tool_call_id, tool, args, action_hash, reason, rule_id, tier, role,
    approvals_required, approvals_received, version, status, proposer, evidence, context, on_timeout, escalate_to, trustable,
    resolution, parent_id, superseded_by, created_at, expires_at, updated_at, resolved_at, planted, decisions)
  VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,$29,$30)`;

function insertParams(r: ApprovalRequest): unknown[] {
  return [
    r.id,
    r.threadId,
    r.checkpointId,
    r.toolCallId,
    r.tool,
    JSON.stringify(r.args),
    r.actionHash,
    r.reason,
    r.ruleId,
    r.tier,
    r.role,
    r.approvalsRequired,
    r.approvalsReceived,
    r.version,
    r.status,
    r.proposer,
    JSON.stringify(r.evidence),
    JSON.stringify(r.context),
    r.onTimeout,
    r.escalateTo === null ? null : JSON.stringify(r.escalateTo),
    r.trustable ? 1 : 0,
    r.resolution === null ? null : JSON.stringify(r.resolution),
    r.parentId,
    r.supersededBy,
    r.createdAt,
    r.expiresAt,
    r.updatedAt,
    r.resolvedAt,
    r.planted ? 1 : 0,
    r.decisions ? JSON.stringify(r.decisions) : null,
  ];
}

/** The SELECT for one page of {@link RequestStoreOps.listRequests}, fetching one row past the page to tell if another follows. */
function listQuery(q: RequestQuery, limit: number): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (p: string) => string, v: unknown) => {
    params.push(v);
    where.push(sql(`$${params.length}`));
  };
  // Pending requests have their own (partial) indexes; the planner uses them only for the literal.
  if (q.status === 'pending') where.push(`status = 'pending'`);
  else if (q.status) add((p) => `status = ${p}`, q.status);
  if (q.tool) add((p) => `tool = ${p}`, q.tool);
  if (q.threadId) add((p) => `thread_id = ${p}`, q.threadId);
  if (q.planted !== undefined) where.push(q.planted ? `planted = 1` : `planted = 0`);
  const byExpiry = q.order === 'expiry';
  if (q.roles) {
    // Newest first is an ordered scan of the created_at index with roles as a filter; an index
    // on role would need a sort of every match. `role || ''` keeps planners off the role index.
    where.push(`${byExpiry ? 'role' : `(role || '')`} IN (${placeholders(q.roles.length, params.length + 1)})`);
    params.push(...q.roles);
  }
  const col = byExpiry ? 'expires_at' : 'created_at';
  if (q.cursor) {
    const [at, id] = decodeCursor(q.cursor, byExpiry ? 'expiry' : 'newest');
    params.push(at, id);
    const a = `$${params.length - 1}`;
    const b = `$${params.length}`;
    where.push(
      byExpiry
        ? `(${col} > ${a} OR (${col} = ${a} AND id > ${b}))`
        : `(${col} < ${a} OR (${col} = ${a} AND id < ${b}))`,
    );
  }
  params.push(limit + 1);
  const dir = byExpiry ? 'ASC' : 'DESC';
  return {
    sql: `SELECT * FROM il_requests ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${col} ${dir}, id ${dir} LIMIT $${params.length}`,
    params,
  };
}

type RequestWrites = Pick<
  RequestStoreOps,
  'insertRequest' | 'updateRequest' | 'updateLockedRequest' | 'setRequestStatus'
>;

/** Writes of approval requests: the insert and the versioned updates. */
function requestWrites(db: SqlExecutor): RequestWrites {
  return {
    async insertRequest(r) {
      await db.send(INSERT_REQUEST, insertParams(r));
    },
    async updateRequest(r, expectedVersion) {
      return (await db.run(UPDATE_REQUEST, updateParams(r, expectedVersion))) === 1;
    },
    async updateLockedRequest(r, expectedVersion) {
      await db.sendExpecting(
        UPDATE_REQUEST,
        updateParams(r, expectedVersion),
        1,
        () =>
          new Error(
            `Approval request ${r.id} is no longer at version ${expectedVersion}, though this transaction read it for update; nothing was written.`,
          ),
      );
    },
    async setRequestStatus(id, status, now) {
      await db.send(`UPDATE il_requests SET status = $2, version = version + 1, updated_at = $3 WHERE id = $1`, [
        id,
        status,
        now,
      ]);
    },
  };
}

type RequestReads = Pick<
  RequestStoreOps,
  'getRequest' | 'listRequestsForCall' | 'listRequests' | 'claimExpired' | 'countPendingByRole'
>;

/** Reads of approval requests: by id, by call, paged listings, the expired to claim and the queue's figures. */
function requestReads(db: SqlExecutor, d: Dialect): RequestReads {
  return {
    async getRequest(id, opts) {
      const rows = await db.all(`SELECT * FROM il_requests WHERE id = $1${opts?.forUpdate ? d.forUpdate : ''}`, [id]);
      return rows[0] ? toRequest(rows[0]) : undefined;
    },
    async listRequestsForCall(threadId, toolCallId) {
      // The thread index narrows to the thread's few requests; the call id filters those. A planted
      // check carries the real call's id (so no reviewer can tell it by its id) but is never its request.
      const rows = await db.all(
        `SELECT * FROM il_requests WHERE thread_id = $1 AND tool_call_id = $2 AND planted = 0 ORDER BY created_at, id`,
        [threadId, toolCallId],
      );
      return rows.map(toRequest);
    },
    async listRequests(q) {
      if (q.roles?.length === 0) return { items: [], nextCursor: null };
      const limit = Math.min(Math.max(q.limit ?? 50, 1), 500);
      const { sql, params } = listQuery(q, limit);
      const rows = await db.all(sql, params);
      const items = rows.slice(0, limit).map(toRequest);
      const last = items[items.length - 1];
      const byExpiry = q.order === 'expiry';
      const nextCursor =
        rows.length > limit && last
          ? encodeCursor(byExpiry ? 'expiry' : 'newest', byExpiry ? last.expiresAt : last.createdAt, last.id)
          : null;
      return { items, nextCursor };
    },
    async claimExpired(now, limit) {
      const rows = await db.all(
        `SELECT * FROM il_requests WHERE status = 'pending' AND expires_at <= $1 ORDER BY expires_at LIMIT $2${d.forUpdateSkipLocked}`,
        [now, limit],
      );
      return rows.map(toRequest);
    },
    async countPendingByRole() {
      const rows = await db.all(
        // Planted checks wait in the queue like real requests but are left out of its figures.
        `SELECT role, COUNT(*) AS n, MIN(created_at) AS oldest FROM il_requests WHERE status = 'pending' GROUP BY role`,
      );
      return rows.map((r) => ({ role: String(r.role), count: num(r.n), oldestCreatedAt: num(r.oldest) }));
    },
  };
}

/** Quorum votes and trust grants: what reviewers decided on a request, and what they trusted beyond it. */
function voteAndTrustOps(
  db: SqlExecutor,
): Pick<RequestStoreOps, 'insertVote' | 'listVoters' | 'insertTrust' | 'getTrust'> {
  return {
    async insertVote(v) {
      // One row per reviewer: their latest decision. An approver who later rejects, responds or edits
      // replaces their approval; an approval never replaces a vote, so no one is counted twice.
      await db.sendExpecting(
        `INSERT INTO il_votes (request_id, reviewer, type, version, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (request_id, reviewer) DO UPDATE SET type = excluded.type, version = excluded.version, created_at = excluded.created_at
         WHERE excluded.type <> 'approve'`,
        [v.requestId, v.reviewer, v.type, v.version, v.createdAt],
        1,
        () =>
          new Error(
            `Reviewer ${v.reviewer} already has a vote on request ${v.requestId}; an approval cannot replace it.`,
          ),
      );
    },
    async listVoters(requestId) {
      const rows = await db.all(
        `SELECT reviewer FROM il_votes WHERE request_id = $1 AND type = 'approve' ORDER BY created_at`,
        [requestId],
      );
      return rows.map((r) => String(r.reviewer));
    },
    async insertTrust(g) {
      await db.send(
        `INSERT INTO il_trust (thread_id, tool, rule_id, reviewer, request_id, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
        [g.threadId, g.tool, g.ruleId, g.reviewer, g.requestId, g.createdAt],
      );
    },
    async getTrust(threadId, tool, ruleId) {
      const rows = await db.all(
        `SELECT reviewer, request_id, created_at FROM il_trust WHERE thread_id = $1 AND tool = $2 AND rule_id = $3`,
        [threadId, tool, ruleId],
      );
      const r = rows[0];
      return r
        ? { reviewer: String(r.reviewer), requestId: String(r.request_id), createdAt: num(r.created_at) }
        : undefined;
    },
  };
}

/** Approval requests, quorum votes and trust grants. */
export function requestOps(db: SqlExecutor, d: Dialect): RequestStoreOps {
  return { ...requestWrites(db), ...requestReads(db, d), ...voteAndTrustOps(db) };
}

/**
 * How each operation runs outside a caller's transaction (see {@link OpShape}).
 * Kept next to the SQL it describes; the type makes a new operation without a shape a compile error.
 */
export const requestShapes: { [K in keyof ReturnType<typeof requestOps>]: OpShape } = {
  insertRequest: 'write',
  getRequest: 'read',
  setRequestStatus: 'write',
  updateRequest: 'write',
  updateLockedRequest: 'write',
  listRequests: 'read',
  listRequestsForCall: 'read',
  claimExpired: 'write',
  insertVote: 'write',
  listVoters: 'read',
  countPendingByRole: 'read',
  insertTrust: 'write',
  getTrust: 'read',
};
