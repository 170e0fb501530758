import { hashEvent, newId, type AuditEvent } from '../../core/index.ts';
import type { StoreTx } from '../types.ts';
import { fromJson, num, strOrNull, type Dialect, type Row, type SqlExecutor, where } from './executor.ts';

function toEvent(r: Row): AuditEvent {
  return {
    seq: num(r.seq),
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

/** The hash-chained audit log. */
export function auditOps(db: SqlExecutor, d: Dialect): Pick<StoreTx, 'appendAudit' | 'listAudit' | 'getAuditHead'> {
  return {
    async appendAudit(inputs, now) {
      if (inputs.length === 0) return [];
      // Locking the head row serializes appenders across processes: one chain, no forks.
      const head = (await db.all(`SELECT seq, hash FROM il_audit_head WHERE id = 1${d.forUpdate}`))[0]!;
      let seq = num(head.seq);
      let prevHash = String(head.hash);
      const events: AuditEvent[] = [];
      for (const i of inputs) {
        seq++;
        const e = { seq, id: newId<string>('evt'), type: i.type, actor: i.actor, at: now, threadId: i.threadId ?? null, requestId: i.requestId ?? null, payload: i.payload ?? {}, prevHash };
        const hash = hashEvent(e);
        events.push({ ...e, hash });
        prevHash = hash;
      }
      const params: unknown[] = [];
      const values = events.map((e) => {
        params.push(e.seq, e.id, e.type, e.actor, e.at, e.threadId, e.requestId, JSON.stringify(e.payload), e.prevHash, e.hash);
        const b = params.length - 10;
        return `(${Array.from({ length: 10 }, (_, k) => `$${b + k + 1}`).join(', ')})`;
      });
      const insert = `INSERT INTO il_audit (seq, id, type, actor, at, thread_id, request_id, payload, prev_hash, hash) VALUES ${values.join(', ')}`;
      if (d.writableCte) {
        // The events and the new head in one round trip.
        params.push(seq, prevHash);
        await db.run(`WITH appended AS (${insert}) UPDATE il_audit_head SET seq = $${params.length - 1}, hash = $${params.length} WHERE id = 1`, params);
      } else {
        await db.run(insert, params);
        await db.run(`UPDATE il_audit_head SET seq = $1, hash = $2 WHERE id = 1`, [seq, prevHash]);
      }
      return events;
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
    async getAuditHead() {
      const r = (await db.all(`SELECT seq, hash FROM il_audit_head WHERE id = 1`))[0];
      return r ? { seq: num(r.seq), hash: String(r.hash) } : null;
    },
  };
}
