/**
 * The audit log as several chains (migration 3): a log written before it
 * still verifies after the upgrade, new events go to their thread's chain,
 * and on PostgreSQL appenders of different chains do not wait for each other.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditChainFor, GENESIS_HASH, hashEvent, type AuditEvent } from '../core/audit-chain.ts';
import { AuditVerifier, type ChainVerification } from '../core/audit-verify.ts';
import { MIGRATIONS } from './sql/schema.ts';
import { createSqliteStore } from './sqlite/sqlite-store.ts';
import { createPostgresStore } from './postgres/postgres-store.ts';
import { TEST_DATABASE_URL, postgresBackend } from '../testing/backends.ts';
import type { Store } from './types.ts';

async function verify(store: Store): Promise<ChainVerification> {
  const v = new AuditVerifier(await store.getAuditHeads());
  for (const e of await store.listAudit({ limit: 100_000 })) if (!v.push(e)) break;
  return v.finish();
}

/** A store whose database holds schema version 2 and a log of `n` events written the way version 2 wrote them. */
async function version2WithLog(store: Store, backend: 'sqlite' | 'postgres', n: number): Promise<void> {
  await store.unsafeQuery(
    `CREATE TABLE il_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
  );
  for (const m of MIGRATIONS.filter((x) => x.id <= 2)) {
    await store.unsafeQuery(`INSERT INTO il_migrations (id, name, applied_at) VALUES ($1, $2, $3)`, [m.id, m.name, 1]);
    for (const s of m.statements) {
      const sql = typeof s === 'string' ? s : s[backend];
      if (sql) await store.unsafeQuery(sql);
    }
  }
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    // Version 2's event hash is the chain-0 form: the position as `seq`.
    const body: Omit<AuditEvent, 'hash'> = {
      seq,
      chain: 0,
      chainSeq: seq,
      id: `evt_old_${seq}`,
      type: 'approved',
      actor: 'reviewer:old',
      at: 1000 + seq,
      threadId: `thr_old_${seq % 3}`,
      requestId: null,
      payload: { seq },
      prevHash,
    };
    const hash = hashEvent(body);
    await store.unsafeQuery(
      `INSERT INTO il_audit (seq, id, type, actor, at, thread_id, request_id, payload, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $8, $9)`,
      [seq, body.id, body.type, body.actor, body.at, body.threadId, JSON.stringify(body.payload), prevHash, hash],
    );
    prevHash = hash;
  }
  await store.unsafeQuery(`UPDATE il_audit_head SET seq = $1, hash = $2 WHERE id = 1`, [n, prevHash]);
}

describe('audit chains: upgrade of a log written before several chains', () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-chains-'));
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
    sqlite: async () => createSqliteStore({ path: join(dir, 'v2.db') }),
    postgres: async () => {
      const s = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema, max: 4 });
      await s.unsafeQuery(`CREATE SCHEMA ${schema}`);
      return s;
    },
  };

  for (const backend of ['sqlite', 'postgres'] as const) {
    it(`${backend}: the old log becomes chain 0 and verifies; new events chain after it; tampering with old events still shows`, async () => {
      const store = await open[backend]();
      stores.push(store);
      await version2WithLog(store, backend, 12);
      await store.migrate();

      const heads = await store.getAuditHeads();
      assert.equal(heads.length, 65);
      assert.deepEqual(heads[0], { chain: 0, seq: 12, hash: heads[0]!.hash });
      assert.ok(heads.slice(1).every((h) => h.seq === 0 && h.hash === GENESIS_HASH));
      const v0 = await verify(store);
      assert.equal(v0.ok, true, JSON.stringify(v0));
      assert.deepEqual(v0.ok && [v0.events, v0.headSeq], [12, 12]);

      await store.transaction((tx) =>
        tx.appendAudit(
          [
            { type: 'interrupted', actor: 'agent:new', threadId: 'thr_new' },
            { type: 'notified', actor: 'system:notify', threadId: 'thr_new' },
          ],
          5000,
        ),
      );
      const appended = await store.listAudit({ threadId: 'thr_new' });
      assert.deepEqual(
        appended.map((e) => [e.seq, e.chain, e.chainSeq]),
        [
          [13, auditChainFor('thr_new'), 1],
          [14, auditChainFor('thr_new'), 2],
        ],
      );
      const ok = await verify(store);
      assert.equal(ok.ok, true, JSON.stringify(ok));
      assert.equal(ok.ok && ok.events, 14);

      await store.unsafeQuery(`UPDATE il_audit SET actor = 'reviewer:forger' WHERE seq = 5`);
      const bad = await verify(store);
      assert.equal(bad.ok, false);
      if (!bad.ok) {
        assert.deepEqual([bad.brokenAt.seq, bad.brokenAt.chain], [5, 0]);
        assert.match(bad.brokenAt.problem, /chain 0: content changed/);
      }
    });
  }
});

describe('audit chains on PostgreSQL: appenders lock only their own chain', () => {
  const backend = postgresBackend();
  after(() => backend.destroy());

  /** Two thread ids whose events go to different chains, and one that shares the first's chain. */
  function threads(): { a: string; b: string; sameAsA: string } {
    const a = `thr_${randomBytes(4).toString('hex')}`;
    let b = a;
    let sameAsA = a;
    for (let i = 0; b === a || sameAsA === a; i++) {
      const t = `thr_${i}_${randomBytes(2).toString('hex')}`;
      if (b === a && auditChainFor(t) !== auditChainFor(a)) b = t;
      if (sameAsA === a && t !== a && auditChainFor(t) === auditChainFor(a)) sameAsA = t;
    }
    return { a, b, sameAsA };
  }

  /** Open a transaction that appends for `holder` and stays open until released; then time another thread's append. */
  async function appendWhileHeld(store: Store, holder: string, other: string): Promise<'finished' | 'waited'> {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let appended!: () => void;
    const inside = new Promise<void>((r) => (appended = r));
    const first = store.transaction(async (tx) => {
      await tx.appendAudit([{ type: 'approved', actor: 'reviewer:a', threadId: holder }], 1);
      // The append is sent, not waited for; a read behind it returns once it ran and holds the chain.
      await tx.getAuditHeads();
      appended();
      await held;
    });
    await inside;
    const second = store.transaction((tx) =>
      tx.appendAudit([{ type: 'approved', actor: 'reviewer:b', threadId: other }], 2),
    );
    const outcome = await Promise.race([
      second.then(() => 'finished' as const),
      // Time is the point here: the second append either commits while the first holds its chain or
      // it does not; 1.5 s is far longer than a commit takes, and no signal says "will never finish".
      new Promise<'waited'>((r) => setTimeout(() => r('waited'), 1500)),
    ]);
    release();
    await Promise.all([first, second]);
    return outcome;
  }

  it('an append to another chain commits while a transaction holding one chain is open; the same chain waits', async () => {
    const store = await backend.create();
    const { a, b, sameAsA } = threads();
    assert.equal(await appendWhileHeld(store, a, b), 'finished');
    assert.equal(await appendWhileHeld(store, a, sameAsA), 'waited');
    const v = await verify(store);
    assert.equal(v.ok, true, JSON.stringify(v));
    assert.equal(v.ok && v.events, 4);
  });
});
