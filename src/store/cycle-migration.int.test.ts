/**
 * Migrations 7 (the audit append and checked writes in the database) and 8 (the SQLite audit log
 * keyed by its position) on a database at schema version 6 with a log in it: the old events keep
 * verifying, new events chain on from the old heads whoever hashes them (PostgreSQL's
 * `il_audit_append`, Node on SQLite), and the log reads the same through every filter.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditChainFor, hashEvent, type AuditEvent } from '../core/audit-chain.ts';
import { AuditVerifier } from '../core/audit-verify.ts';
import { MIGRATIONS } from './sql/schema.ts';
import { LATEST_MIGRATION } from './sql/migrate.ts';
import { createSqliteStore } from './sqlite/sqlite-store.ts';
import { createPostgresStore } from './postgres/postgres-store.ts';
import { TEST_DATABASE_URL } from '../testing/backends.ts';
import type { Store } from './types.ts';

async function verify(store: Store) {
  const v = new AuditVerifier(await store.getAuditHeads());
  for (const e of await store.listAudit({ limit: 100_000 })) if (!v.push(e)) break;
  return v.finish();
}

/** Schema version 6, and `n` events over three threads appended the way version 6 appended them (hashed in Node). */
async function version6WithLog(store: Store, backend: 'sqlite' | 'postgres', n: number): Promise<void> {
  await store.unsafeQuery(
    `CREATE TABLE il_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
  );
  for (const m of MIGRATIONS.filter((x) => x.id <= 6)) {
    await store.unsafeQuery(`INSERT INTO il_migrations (id, name, applied_at) VALUES ($1, $2, $3)`, [m.id, m.name, 1]);
    for (const s of m.statements) {
      const sql = typeof s === 'string' ? s : s[backend];
      if (sql) await store.unsafeQuery(sql);
    }
  }
  for (let k = 0; k < n; k++) {
    const threadId = `thr_old_${k % 3}`;
    const chain = auditChainFor(threadId);
    const [head] = await store.unsafeQuery(`SELECT seq, hash FROM il_audit_chains WHERE chain = $1`, [chain]);
    const [next] = await store.unsafeQuery(
      backend === 'postgres'
        ? `SELECT nextval('il_audit_seq') AS seq`
        : `SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM il_audit`,
    );
    const e: Omit<AuditEvent, 'hash'> = {
      seq: Number(next!.seq),
      chain,
      chainSeq: Number(head!.seq) + 1,
      id: `evt_old_${k}`,
      type: k % 2 ? 'approved' : 'interrupted',
      actor: 'agent:support',
      at: 1000 + k,
      threadId,
      requestId: `apr_old_${k % 2}`,
      payload: { k, note: 'Grüße — 👍' },
      prevHash: String(head!.hash),
    };
    const hash = hashEvent(e);
    await store.unsafeQuery(
      `INSERT INTO il_audit (seq, id, chain, chain_seq, type, actor, at, thread_id, request_id, payload, prev_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
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
      ],
    );
    await store.unsafeQuery(`UPDATE il_audit_chains SET seq = $1, hash = $2 WHERE chain = $3`, [
      e.chainSeq,
      hash,
      chain,
    ]);
  }
}

describe('migrations 7 and 8 on a database at schema 6 with a log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-cycle-mig-'));
  const schema = `il_test_${randomBytes(6).toString('hex')}`;
  const stores: Store[] = [];
  after(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
    const pg = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema: 'public', max: 1 });
    await pg.unsafeQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pg.close();
  });
  const open = {
    sqlite: async () => createSqliteStore({ path: join(dir, 'v6.db') }),
    postgres: async () => {
      const s = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema, max: 2 });
      await s.unsafeQuery(`CREATE SCHEMA ${schema}`);
      return s;
    },
  };

  for (const backend of ['sqlite', 'postgres'] as const)
    it(`${backend}: the old log verifies, new events chain on from its heads, and it reads the same`, async () => {
      const store = await open[backend]();
      stores.push(store);
      await version6WithLog(store, backend, 12);
      const before = await store.listAudit({});
      const byThread = await store.listAudit({ threadId: 'thr_old_1' });
      const byRequest = await store.listAudit({ requestId: 'apr_old_0' });
      const after3 = await store.listAudit({ afterSeq: before[2]!.seq, limit: 4 });
      assert.equal((await verify(store)).ok, true);

      await store.migrate();
      const [v] = await store.unsafeQuery(`SELECT MAX(id) AS v FROM il_migrations`);
      assert.equal(Number(v!.v), LATEST_MIGRATION);
      assert.deepEqual(await store.listAudit({}), before);
      assert.deepEqual(await store.listAudit({ threadId: 'thr_old_1' }), byThread);
      assert.deepEqual(await store.listAudit({ requestId: 'apr_old_0' }), byRequest);
      assert.deepEqual(await store.listAudit({ afterSeq: before[2]!.seq, limit: 4 }), after3);
      const migrated = await verify(store);
      assert.equal(migrated.ok, true, JSON.stringify(migrated));

      // New events on the old threads' chains (hashed where this backend hashes) and on a new one.
      await store.transaction(async (tx) => {
        await tx.appendAudit(
          [
            {
              type: 'executed',
              actor: 'system:worker',
              threadId: 'thr_old_1',
              requestId: 'apr_old_1',
              payload: { n: 1 },
            },
            { type: 'thread_completed', actor: 'system:worker', threadId: 'thr_old_1' },
          ],
          5000,
        );
        await tx.appendAudit([{ type: 'interrupted', actor: 'agent:new', threadId: 'thr_new', payload: {} }], 5001);
      });
      const all = await store.listAudit({});
      assert.equal(all.length, 15);
      const old1 = all.filter((e) => e.threadId === 'thr_old_1');
      assert.deepEqual(
        old1.map((e) => e.chainSeq),
        old1.map((_, i) => i + 1),
      );
      assert.equal(old1[4]!.prevHash, old1[3]!.hash, 'the first new event links to the last old one');
      assert.ok(
        all.every((e, i) => i === 0 || e.seq > all[i - 1]!.seq),
        'log positions still increase',
      );
      const ok = await verify(store);
      assert.equal(ok.ok, true, JSON.stringify(ok));
      assert.equal(ok.ok && ok.events, 15);

      // An event changed after the migration still shows.
      await store.unsafeQuery(`UPDATE il_audit SET actor = 'reviewer:mallory' WHERE id = 'evt_old_4'`);
      assert.equal((await verify(store)).ok, false);
    });
});
