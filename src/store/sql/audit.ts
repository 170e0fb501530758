import {
  auditChainFor,
  hashEvent,
  hashParts,
  newId,
  type AuditEvent,
  type AuditEventInput,
  type ChainHead,
} from '../../core/index.ts';
import type { AuditStoreOps } from '../types.ts';
import { fromJson, num, strOrNull, type Dialect, type Row, type SqlExecutor, where, type OpShape } from './executor.ts';

function toEvent(r: Row): AuditEvent {
  return {
    seq: num(r.seq),
    chain: num(r.chain),
    chainSeq: num(r.chain_seq),
    id: String(r.id),
    type: r.type as AuditEvent['type'],
    actor: String(r.actor),
    at: num(r.at),
    threadId: strOrNull(r.thread_id),
    requestId: strOrNull(r.request_id),
    payload: fromJson(r.payload),
    prevHash: String(r.prev_hash),
    hash: String(r.hash),
  };
}

/** PostgreSQL: one statement numbers, hashes and inserts under the chain's lock (migration 7), sent with the transaction's other writes. */
async function appendInDatabase(
  db: SqlExecutor,
  chain: number,
  inputs: readonly AuditEventInput[],
  ids: readonly string[],
  now: number,
) {
  const cols = { ids: [...ids], types: [] as string[], actors: [] as string[], threads: [] as (string | null)[] };
  const requests: (string | null)[] = [];
  const payloads: string[] = [];
  const heads: string[] = [];
  const mids: string[] = [];
  const tails: string[] = [];
  inputs.forEach((i, k) => {
    const e = {
      id: ids[k]!,
      chain,
      type: i.type,
      actor: i.actor,
      at: now,
      threadId: i.threadId ?? null,
      requestId: i.requestId ?? null,
      payload: i.payload ?? {},
    };
    const p = hashParts(e);
    cols.types.push(e.type);
    cols.actors.push(e.actor);
    cols.threads.push(e.threadId);
    requests.push(e.requestId);
    payloads.push(JSON.stringify(e.payload));
    heads.push(p.head);
    mids.push(p.mid);
    tails.push(p.tail);
  });
  await db.send(`SELECT il_audit_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [
    chain,
    now,
    cols.ids,
    cols.types,
    cols.actors,
    cols.threads,
    requests,
    payloads,
    heads,
    mids,
    tails,
  ]);
}

/** SQLite (one writer at a time): read the head, hash here, insert, move the head. */
async function appendHere(
  db: SqlExecutor,
  d: Dialect,
  chain: number,
  inputs: readonly AuditEventInput[],
  ids: readonly string[],
  now: number,
) {
  const rows = await db.all(
    `SELECT seq, hash, (SELECT COALESCE(MAX(seq), 0) FROM il_audit) AS next FROM il_audit_chains WHERE chain = $1${d.forUpdate}`,
    [chain],
  );
  const head = rows[0];
  if (!head) throw new Error(`Audit chain ${chain} has no head row: the schema is not migrated (run migrations).`);
  let pos = num(head.seq);
  let prevHash = String(head.hash);
  const params: unknown[] = [];
  const values = inputs.map((i, k) => {
    pos++;
    const e = {
      seq: num(head.next) + k + 1,
      chain,
      chainSeq: pos,
      id: ids[k]!,
      type: i.type,
      actor: i.actor,
      at: now,
      threadId: i.threadId ?? null,
      requestId: i.requestId ?? null,
      payload: i.payload ?? {},
      prevHash,
    };
    const hash = hashEvent(e);
    prevHash = hash;
    params.push(
      e.seq,
      e.id,
      e.chain,
      e.chainSeq,
      e.type,
      e.actor,
      e.at,
      e.threadId,
      e.requestId,
      JSON.stringify(e.payload),
      e.prevHash,
      hash,
    );
    const b = params.length - 12;
    return `(${Array.from({ length: 12 }, (_, n) => `$${b + n + 1}`).join(', ')})`;
  });
  await db.send(
    `INSERT INTO il_audit (seq, id, chain, chain_seq, type, actor, at, thread_id, request_id, payload, prev_hash, hash) VALUES ${values.join(', ')}`,
    params,
  );
  await db.send(`UPDATE il_audit_chains SET seq = $1, hash = $2 WHERE chain = $3`, [pos, prevHash, chain]);
}

/** The hash-chained audit log: several chains, one head row each (see migration 3). */
export function auditOps(db: SqlExecutor, d: Dialect): AuditStoreOps {
  return {
    async appendAudit(inputs, now) {
      if (inputs.length === 0) return;
      // Each event goes to its thread's chain; one without a thread goes with the call's first
      // thread (else its request's, else its own id's chain). A call that spans several chains
      // (the sweeper's batch over many threads) locks them in chain order, as every appender does,
      // so two such calls cannot deadlock.
      const ids = inputs.map(() => newId<string>('evt'));
      const callThread = inputs.find((e) => e.threadId)?.threadId;
      const groups = new Map<number, number[]>();
      inputs.forEach((e, k) => {
        const chain = auditChainFor(e.threadId ?? callThread ?? e.requestId ?? ids[k]!);
        const g = groups.get(chain);
        if (g) g.push(k);
        else groups.set(chain, [k]);
      });
      for (const chain of [...groups.keys()].sort((a, b) => a - b)) {
        const idx = groups.get(chain)!;
        const events = idx.map((k) => inputs[k]!);
        const eventIds = idx.map((k) => ids[k]!);
        if (d.auditFunction) await appendInDatabase(db, chain, events, eventIds, now);
        else await appendHere(db, d, chain, events, eventIds, now);
      }
    },
    async listAudit(f) {
      const w = where([
        ['thread_id', '=', f.threadId],
        ['request_id', '=', f.requestId],
        ['seq', '>', f.afterSeq],
      ]);
      w.params.push(f.limit ?? 10_000);
      const rows = await db.all(`SELECT * FROM il_audit ${w.sql} ORDER BY seq LIMIT $${w.params.length}`, w.params);
      return rows.map(toEvent);
    },
    async getAuditHeads() {
      const rows = await db.all(`SELECT chain, seq, hash FROM il_audit_chains ORDER BY chain`);
      return rows.map((r): ChainHead => ({ chain: num(r.chain), seq: num(r.seq), hash: String(r.hash) }));
    },
  };
}

/**
 * How each operation runs outside a caller's transaction (see {@link OpShape}).
 * Kept next to the SQL it describes; the type makes a new operation without a shape a compile error.
 */
export const auditShapes: { [K in keyof ReturnType<typeof auditOps>]: OpShape } = {
  appendAudit: 'multi',
  listAudit: 'read',
  getAuditHeads: 'read',
};
