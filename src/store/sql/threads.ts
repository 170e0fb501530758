import type { CheckpointRow, ThreadStoreOps, ThreadRow } from '../types.ts';
import { fromJson, num, numOrNull, strOrNull, type Row, type SqlExecutor, type OpShape } from './executor.ts';

function toThread(r: Row): ThreadRow {
  return {
    id: String(r.id),
    agent: String(r.agent),
    agentVersion: String(r.agent_version),
    status: r.status as ThreadRow['status'],
    messageCount: num(r.message_count),
    abortRequested: num(r.abort_requested) === 1,
    metadata: fromJson(r.metadata),
    leaseOwner: strOrNull(r.lease_owner),
    leaseUntil: numOrNull(r.lease_until),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function toCheckpoint(r: Row): CheckpointRow {
  return {
    id: String(r.id),
    threadId: String(r.thread_id),
    messageCount: num(r.message_count),
    schemaVersion: num(r.schema_version),
    state: fromJson(r.state),
    createdAt: num(r.created_at),
  };
}

const PATCH_COLUMNS = {
  status: 'status',
  messageCount: 'message_count',
  abortRequested: 'abort_requested',
  metadata: 'metadata',
  agentVersion: 'agent_version',
  leaseOwner: 'lease_owner',
} as const;

/** Thread rows: creation, reads and patches of their fields. */
function threadRowOps(db: SqlExecutor): Pick<ThreadStoreOps, 'insertThread' | 'getThread' | 'updateThread'> {
  return {
    async insertThread(t) {
      // A thread another run created meanwhile is not an error here: the caller says what it means.
      const n = await db.run(
        `INSERT INTO il_threads (id, agent, agent_version, status, message_count, abort_requested, metadata, created_at, updated_at, paused)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
        [
          t.id,
          t.agent,
          t.agentVersion,
          t.status,
          t.messageCount,
          t.abortRequested ? 1 : 0,
          JSON.stringify(t.metadata),
          t.createdAt,
          t.updatedAt,
          t.status === 'interrupted' ? 1 : 0,
        ],
      );
      return n === 1;
    },
    async getThread(id) {
      const rows = await db.all(`SELECT * FROM il_threads WHERE id = $1`, [id]);
      return rows[0] ? toThread(rows[0]) : undefined;
    },
    async updateThread(id, patch, now) {
      const sets: string[] = [];
      const params: unknown[] = [id, now];
      for (const [k, col] of Object.entries(PATCH_COLUMNS)) {
        const v = patch[k as keyof typeof patch];
        if (v === undefined) continue;
        params.push(typeof v === 'boolean' ? (v ? 1 : 0) : v !== null && typeof v === 'object' ? JSON.stringify(v) : v);
        sets.push(`${col} = $${params.length}`);
        if (k === 'leaseOwner' && v === null) sets.push('lease_until = NULL');
        if (k === 'status' && v === 'interrupted') sets.push('paused = 1');
      }
      await db.send(`UPDATE il_threads SET ${[...sets, 'updated_at = $2'].join(', ')} WHERE id = $1`, params);
    },
  };
}

/** The run lease on a thread: one loop at a time per thread. */
function threadLeaseOps(db: SqlExecutor): Pick<ThreadStoreOps, 'claimThread' | 'renewThreadLease' | 'releaseThread'> {
  return {
    async claimThread(t, owner, leaseUntil, now) {
      // One statement in the common case: create the thread holding the lease, or take the lease if free.
      const rows = await db.all(
        `INSERT INTO il_threads (id, agent, agent_version, status, message_count, abort_requested, metadata, lease_owner, lease_until, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 0, 0, $5, $6, $7, $8, $8)
         ON CONFLICT (id) DO UPDATE SET lease_owner = excluded.lease_owner, lease_until = excluded.lease_until, updated_at = excluded.updated_at
         WHERE il_threads.lease_owner IS NULL OR il_threads.lease_until < $8 OR il_threads.lease_owner = $6
         RETURNING *`,
        [t.id, t.agent, t.agentVersion, t.status, JSON.stringify(t.metadata), owner, leaseUntil, now],
      );
      if (rows[0]) return { claimed: true, thread: toThread(rows[0]) };
      const cur = await db.all(`SELECT * FROM il_threads WHERE id = $1`, [t.id]);
      return { claimed: false, thread: toThread(cur[0]!) };
    },
    async renewThreadLease(id, owner, leaseUntil) {
      return (
        (await db.run(`UPDATE il_threads SET lease_until = $3 WHERE id = $1 AND lease_owner = $2`, [
          id,
          owner,
          leaseUntil,
        ])) === 1
      );
    },
    async releaseThread(id, owner, now) {
      await db.send(
        `UPDATE il_threads SET lease_owner = NULL, lease_until = NULL, updated_at = $3 WHERE id = $1 AND lease_owner = $2`,
        [id, owner, now],
      );
    },
  };
}

/** A thread's messages, each stored once in sequence. */
function messageOps(db: SqlExecutor): Pick<ThreadStoreOps, 'appendMessages' | 'listMessages'> {
  return {
    async appendMessages(threadId, fromSeq, messages) {
      if (messages.length === 0) return;
      const values: string[] = [];
      const params: unknown[] = [threadId];
      messages.forEach((m, i) => {
        params.push(fromSeq + i, JSON.stringify(m));
        values.push(`($1, $${params.length - 1}, $${params.length})`);
      });
      await db.send(`INSERT INTO il_messages (thread_id, seq, body) VALUES ${values.join(', ')}`, params);
    },
    async listMessages(threadId, limit) {
      const rows =
        limit === undefined
          ? await db.all(`SELECT body FROM il_messages WHERE thread_id = $1 ORDER BY seq`, [threadId])
          : await db.all(`SELECT body FROM il_messages WHERE thread_id = $1 AND seq < $2 ORDER BY seq`, [
              threadId,
              limit,
            ]);
      return rows.map((r) => fromJson<unknown>(r.body));
    },
  };
}

/** A run's progress: the thread advanced at a checkpoint, and the checkpoint written. */
function checkpointWrites(
  db: SqlExecutor,
): Pick<ThreadStoreOps, 'advanceThread' | 'writeFencedCheckpoint' | 'insertCheckpoint'> {
  return {
    async advanceThread(id, c, now) {
      // With leaseOwner, the write is fenced: a run whose lease passed to another run changes nothing.
      const rows = await db.all(
        `UPDATE il_threads SET status = $3, message_count = message_count + $4, agent_version = $5, updated_at = $2,
           paused = CASE WHEN $3 = 'interrupted' THEN 1 ELSE paused END${c.releaseLease ? ', lease_owner = NULL, lease_until = NULL' : ''}
         WHERE id = $1${c.leaseOwner === undefined ? '' : ' AND lease_owner = $6'} RETURNING message_count`,
        c.leaseOwner === undefined
          ? [id, now, c.status, c.addMessages, c.agentVersion]
          : [id, now, c.status, c.addMessages, c.agentVersion, c.leaseOwner],
      );
      return rows[0] ? num(rows[0].message_count) - c.addMessages : undefined;
    },
    async writeFencedCheckpoint(w, now, leaseLost) {
      // The thread row first (its lock, and the fence), then the messages and the checkpoint at the
      // count it now holds: the database does the arithmetic, so nothing here waits for an answer.
      await db.sendExpecting(
        `UPDATE il_threads SET status = $3, message_count = message_count + $4, agent_version = $5, updated_at = $2,
           paused = CASE WHEN $3 = 'interrupted' THEN 1 ELSE paused END${w.releaseLease ? ', lease_owner = NULL, lease_until = NULL' : ''}
         WHERE id = $1 AND lease_owner = $6`,
        [w.threadId, now, w.status, w.messages.length, w.agentVersion, w.leaseOwner],
        1,
        leaseLost,
      );
      const n = w.messages.length;
      if (n > 0) {
        const params: unknown[] = [w.threadId, n];
        const rows = w.messages.map((m, i) => {
          params.push(JSON.stringify(m));
          return `($${params.length}, ${i})`;
        });
        await db.send(
          `INSERT INTO il_messages (thread_id, seq, body)
           SELECT $1, t.message_count - $2 + v.column2, v.column1 FROM il_threads t, (VALUES ${rows.join(', ')}) AS v
           WHERE t.id = $1`,
          params,
        );
      }
      const c = w.checkpoint;
      await db.send(
        `INSERT INTO il_checkpoints (id, thread_id, message_count, schema_version, state, created_at)
         SELECT $2, $1, t.message_count, $3, $4, $5 FROM il_threads t WHERE t.id = $1`,
        [w.threadId, c.id, c.schemaVersion, JSON.stringify(c.state), c.createdAt],
      );
    },
    async insertCheckpoint(c) {
      await db.send(
        `INSERT INTO il_checkpoints (id, thread_id, message_count, schema_version, state, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [c.id, c.threadId, c.messageCount, c.schemaVersion, JSON.stringify(c.state), c.createdAt],
      );
    },
  };
}

/** Checkpoints read back: the latest with its messages (where a run starts from), or one by id. */
function checkpointReads(
  db: SqlExecutor,
): Pick<ThreadStoreOps, 'loadLatest' | 'getLatestCheckpoint' | 'getCheckpoint'> {
  return {
    async loadLatest(threadId) {
      // The checkpoint row first (part 0), then the messages it covers in order (part 1): one round trip.
      const rows = await db.all(
        `WITH cp AS (SELECT id, message_count, schema_version, state, created_at FROM il_checkpoints WHERE thread_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1)
         SELECT 0 AS part, id, message_count AS n, schema_version, state AS body, created_at FROM cp
         UNION ALL
         SELECT 1 AS part, NULL, seq, NULL, body, NULL FROM il_messages WHERE thread_id = $1 AND seq < (SELECT message_count FROM cp)
         ORDER BY part, n`,
        [threadId],
      );
      const head = rows[0];
      if (!head || num(head.part) !== 0) return { checkpoint: undefined, messages: [] };
      const checkpoint = toCheckpoint({
        id: head.id,
        thread_id: threadId,
        message_count: head.n,
        schema_version: head.schema_version,
        state: head.body,
        created_at: head.created_at,
      });
      return { checkpoint, messages: rows.slice(1).map((r) => fromJson<unknown>(r.body)) };
    },
    async getLatestCheckpoint(threadId) {
      const rows = await db.all(
        `SELECT * FROM il_checkpoints WHERE thread_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
        [threadId],
      );
      return rows[0] ? toCheckpoint(rows[0]) : undefined;
    },
    async getCheckpoint(id) {
      const rows = await db.all(`SELECT * FROM il_checkpoints WHERE id = $1`, [id]);
      return rows[0] ? toCheckpoint(rows[0]) : undefined;
    },
  };
}

/** Threads, messages and checkpoints. */
export function threadOps(db: SqlExecutor): ThreadStoreOps {
  return {
    ...threadRowOps(db),
    ...threadLeaseOps(db),
    ...messageOps(db),
    ...checkpointWrites(db),
    ...checkpointReads(db),
  };
}

/**
 * How each operation runs outside a caller's transaction (see {@link OpShape}).
 * Kept next to the SQL it describes; the type makes a new operation without a shape a compile error.
 */
export const threadShapes: { [K in keyof ReturnType<typeof threadOps>]: OpShape } = {
  insertThread: 'write',
  getThread: 'read',
  updateThread: 'write',
  claimThread: 'write',
  renewThreadLease: 'write',
  releaseThread: 'write',
  appendMessages: 'write',
  listMessages: 'read',
  advanceThread: 'write',
  writeFencedCheckpoint: 'multi',
  insertCheckpoint: 'write',
  getLatestCheckpoint: 'read',
  loadLatest: 'read',
  getCheckpoint: 'read',
};
