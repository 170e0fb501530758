import {
  auditChainFor,
  hashEvent,
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

/** The hash-chained audit log: several chains, one head row each (see migration 3). */
export function auditOps(db: SqlExecutor, d: Dialect): AuditStoreOps {
  async function appendToChain(
    chain: number,
    inputs: readonly AuditEventInput[],
    ids: readonly string[],
    now: number,
  ): Promise<AuditEvent[]> {
    // Locking the chain's head row serializes that chain's appenders across processes: no forks.
    // The log positions are taken under that lock in the same statement (PostgreSQL: from the
    // sequence, one row per event; SQLite: after the last one), so within a chain they increase.
    const rows = await db.all(
      d.auditSequence
        ? `SELECT h.seq, h.hash, nextval('il_audit_seq') AS next FROM (SELECT seq, hash FROM il_audit_chains WHERE chain = $1${d.forUpdate}) h CROSS JOIN generate_series(1, $2)`
        : `SELECT seq, hash, (SELECT COALESCE(MAX(seq), 0) FROM il_audit) AS next FROM il_audit_chains WHERE chain = $1${d.forUpdate}`,
      d.auditSequence ? [chain, inputs.length] : [chain],
    );
    const head = rows[0];
    if (!head) throw new Error(`Audit chain ${chain} has no head row: the schema is not migrated (run migrations).`);
    const seqs = d.auditSequence
      ? rows.map((r) => num(r.next)).sort((a, b) => a - b)
      : inputs.map((_, k) => num(head.next) + k + 1);
    let pos = num(head.seq);
    let prevHash = String(head.hash);
    const events: AuditEvent[] = [];
    inputs.forEach((i, k) => {
      pos++;
      const e = {
        seq: seqs[k]!,
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
      events.push({ ...e, hash });
      prevHash = hash;
    });
    const params: unknown[] = [];
    const values = events.map((e) => {
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
        e.hash,
      );
      const b = params.length - 12;
      return `(${Array.from({ length: 12 }, (_, k) => `$${b + k + 1}`).join(', ')})`;
    });
    const insert = `INSERT INTO il_audit (seq, id, chain, chain_seq, type, actor, at, thread_id, request_id, payload, prev_hash, hash) VALUES ${values.join(', ')}`;
    if (d.writableCte) {
      // The events and the chain's new head in one round trip.
      params.push(pos, prevHash, chain);
      const n = params.length;
      await db.send(
        `WITH appended AS (${insert}) UPDATE il_audit_chains SET seq = $${n - 2}, hash = $${n - 1} WHERE chain = $${n}`,
        params,
      );
    } else {
      await db.send(insert, params);
      await db.send(`UPDATE il_audit_chains SET seq = $1, hash = $2 WHERE chain = $3`, [pos, prevHash, chain]);
    }
    return events;
  }

  return {
    async appendAudit(inputs, now) {
      if (inputs.length === 0) return [];
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
      const out = new Array<AuditEvent>(inputs.length);
      for (const chain of [...groups.keys()].sort((a, b) => a - b)) {
        const idx = groups.get(chain)!;
        const events = await appendToChain(
          chain,
          idx.map((k) => inputs[k]!),
          idx.map((k) => ids[k]!),
          now,
        );
        idx.forEach((k, n) => (out[k] = events[n]!));
      }
      return out;
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
