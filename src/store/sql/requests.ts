import type { ApprovalRequest, DecisionType, RejectReasons } from '../../core/index.ts';
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

/** A request row as the store hands it out. */
export function toRequest(r: Row): ApprovalRequest {
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
    ...(typeof r.decisions === 'string' ? { decisions: fromJson<DecisionType[]>(r.decisions) } : {}),
    ...(typeof r.reject_reasons === 'string' ? { rejectReasons: fromJson<RejectReasons>(r.reject_reasons) } : {}),
  };
}

type Order = NonNullable<RequestQuery['order']>;

// A cursor names its order, so one from a `newest` page cannot page an `expiry` listing. An `amount`
// cursor's key is the last amount, or `null` once the page reached requests without one.
function encodeCursor(order: Order, a: number | null, id: string): string {
  return Buffer.from(`${order}:${a === null ? 'null' : a}:${id}`).toString('base64url');
}

function decodeCursor(c: string, order: Order): [number | null, string] {
  const m = /^(newest|expiry|amount):([^:]+):(.+)$/.exec(Buffer.from(c, 'base64url').toString());
  const key = m?.[2] === 'null' && m[1] === 'amount' ? null : Number(m?.[2]);
  const valid = m && (key === null || (m[1] === 'amount' ? Number.isFinite(key) : Number.isSafeInteger(key)));
  if (!valid || m[1] !== order) {
    throw new ValidationError(
      valid
        ? `This cursor pages the "${m[1]}" order; request the same order it came from, or start again without a cursor.`
        : 'The cursor is not one this API returned; pass nextCursor from the previous page unchanged.',
      [{ path: 'cursor', message: valid ? 'order mismatch' : 'malformed' }],
    );
  }
  return [key, m[3]!];
}

/** The key a page's last request continues from, in `order`. */
function cursorKey(r: ApprovalRequest, order: Order): number | null {
  if (order === 'expiry') return r.expiresAt;
  if (order === 'newest') return r.createdAt;
  // As the database reads it (Dialect.jsonNumber): a JSON number, else none.
  const a = r.args.amount;
  return typeof a === 'number' && Number.isFinite(a) ? a : null;
}

const ARG_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/** Escape LIKE's wildcards (and the escape character), so the text is matched as typed. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The WHERE conditions of `q`'s filters (not its cursor), their values appended to `params`. */
function filterSql(q: RequestQuery, d: Dialect, params: unknown[]): string[] {
  const where: string[] = [];
  const param = (v: unknown) => `$${params.push(v)}`;
  // Pending requests have their own (partial) indexes; the planner uses them only for the literal.
  if (q.status === 'pending') where.push(`status = 'pending'`);
  else if (q.status) where.push(`status = ${param(q.status)}`);
  if (q.tool) where.push(`tool = ${param(q.tool)}`);
  if (q.tier) where.push(`tier = ${param(q.tier)}`);
  if (q.threadId) where.push(`thread_id = ${param(q.threadId)}`);
  if (q.planted !== undefined) where.push(q.planted ? `planted = 1` : `planted = 0`);
  if (q.ids) where.push(q.ids.length ? `id IN (${q.ids.map(param).join(', ')})` : 'FALSE');
  if (q.text) {
    // One parameter, three columns: LOWER on both sides folds case alike on each backend.
    const p = `LOWER(CAST(${param(`%${likeLiteral(q.text)}%`)} AS TEXT))`;
    where.push(
      `(LOWER(tool) LIKE ${p} ESCAPE '\\' OR LOWER(reason) LIKE ${p} ESCAPE '\\' OR LOWER(args) LIKE ${p} ESCAPE '\\')`,
    );
  }
  for (const [name, value] of Object.entries(q.args ?? {})) {
    // The name becomes a JSON path on SQLite: only plain identifiers, so it cannot mean another path.
    if (!ARG_NAME.test(name))
      throw new ValidationError(`Argument filter "${name}" must be a plain argument name (letters, digits, _).`, [
        { path: `arg.${name}`, message: 'not a plain argument name' },
      ]);
    where.push(`LOWER(${d.jsonText('args', param(name))}) = LOWER(CAST(${param(value)} AS TEXT))`);
  }
  return where;
}

/** Keyset condition continuing `order` after the cursor's request. */
function afterCursor(order: Order, col: string, key: number | null, id: string, params: unknown[]): string {
  const b = `$${params.push(id)}`;
  if (key === null) return `(${col} IS NULL AND id < ${b})`;
  const a = `$${params.push(key)}`;
  if (order === 'expiry') return `(${col} > ${a} OR (${col} = ${a} AND id > ${b}))`;
  if (order === 'newest') return `(${col} < ${a} OR (${col} = ${a} AND id < ${b}))`;
  return `(${col} < ${a} OR (${col} = ${a} AND id < ${b}) OR ${col} IS NULL)`;
}

/** The SELECT for one page of {@link RequestStoreOps.listRequests}, fetching one row past the page to tell if another follows. */
function listQuery(q: RequestQuery, d: Dialect, limit: number): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const order: Order = q.order ?? 'newest';
  const where = filterSql(q, d, params);
  if (q.roles) {
    // Newest first is an ordered scan of the created_at index with roles as a filter; an index
    // on role would need a sort of every match. `role || ''` keeps planners off the role index.
    where.push(
      `${order === 'newest' ? `(role || '')` : 'role'} IN (${placeholders(q.roles.length, params.length + 1)})`,
    );
    params.push(...q.roles);
  }
  const col =
    order === 'expiry'
      ? 'expires_at'
      : order === 'newest'
        ? 'created_at'
        : d.jsonNumber('args', `$${params.push('amount')}`);
  if (q.cursor) {
    const [key, id] = decodeCursor(q.cursor, order);
    where.push(afterCursor(order, col, key, id, params));
  }
  params.push(limit + 1);
  const dir = order === 'expiry' ? 'ASC' : 'DESC';
  // Requests without an amount come last, in both backends (they disagree on where NULLs sort).
  const sort = order === 'amount' ? `(${col} IS NULL), ${col} DESC, id DESC` : `${col} ${dir}, id ${dir}`;
  return {
    sql: `SELECT * FROM il_requests ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${sort} LIMIT $${params.length}`,
    params,
  };
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
    resolution, parent_id, superseded_by, created_at, expires_at, updated_at, resolved_at, planted, decisions, reject_reasons)
  VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,$29,$30,$31)`;

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
    r.rejectReasons ? JSON.stringify(r.rejectReasons) : null,
  ];
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
    async updateLockedRequest(r, expectedVersion, stale) {
      await db.sendExpecting(
        UPDATE_REQUEST,
        updateParams(r, expectedVersion),
        1,
        stale ??
          (() =>
            new Error(
              `Approval request ${r.id} is no longer at version ${expectedVersion}, though this transaction read it for update; nothing was written.`,
            )),
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
  'getRequest' | 'listRequestsForCall' | 'listRequests' | 'countRequests' | 'claimExpired' | 'countPendingByRole'
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
      const { sql, params } = listQuery(q, d, limit);
      const rows = await db.all(sql, params);
      const items = rows.slice(0, limit).map(toRequest);
      const last = items[items.length - 1];
      const order = q.order ?? 'newest';
      const nextCursor = rows.length > limit && last ? encodeCursor(order, cursorKey(last, order), last.id) : null;
      return { items, nextCursor };
    },
    async countRequests(q) {
      if (q.roles?.length === 0) return 0;
      const params: unknown[] = [];
      const where = filterSql(q, d, params);
      if (q.roles) where.push(`role IN (${placeholders(q.roles.length, params.length + 1)})`);
      params.push(...(q.roles ?? []));
      const rows = await db.all(
        `SELECT COUNT(*) AS n FROM il_requests ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
        params,
      );
      return num(rows[0]?.n ?? 0);
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
  countRequests: 'read',
  listRequestsForCall: 'read',
  claimExpired: 'write',
  insertVote: 'write',
  listVoters: 'read',
  countPendingByRole: 'read',
  insertTrust: 'write',
  getTrust: 'read',
};
