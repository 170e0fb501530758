/**
 * Migration 5 (oversight) on a database with data at schema version 4: requests become real (not
 * planted), executions without a tier count as auto calls, and threads that waited on a person are
 * marked so, so the autonomous-completion figure is right for the history too.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS } from './sql/schema.ts';
import { createSqliteStore } from './sqlite/sqlite-store.ts';
import { createPostgresStore } from './postgres/postgres-store.ts';
import { TEST_DATABASE_URL } from '../testing/backends.ts';
import type { Store } from './types.ts';

/** Schema version 4, with three finished threads (one paused on a request), one waiting, and an auto call. */
async function version4WithData(store: Store, backend: 'sqlite' | 'postgres'): Promise<void> {
  await store.unsafeQuery(
    `CREATE TABLE il_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
  );
  for (const m of MIGRATIONS.filter((x) => x.id <= 4)) {
    await store.unsafeQuery(`INSERT INTO il_migrations (id, name, applied_at) VALUES ($1, $2, $3)`, [m.id, m.name, 1]);
    for (const s of m.statements) {
      const sql = typeof s === 'string' ? s : s[backend];
      if (sql) await store.unsafeQuery(sql);
    }
  }
  const thread = (id: string, status: string) =>
    store.unsafeQuery(
      `INSERT INTO il_threads (id, agent, agent_version, status, message_count, abort_requested, metadata, created_at, updated_at)
       VALUES ($1, 'support', '1.0.0', $2, 0, 0, '{}', 1000, 2000)`,
      [id, status],
    );
  await thread('alone', 'completed');
  await thread('alone-too', 'completed');
  await thread('reviewed', 'completed');
  await thread('waiting', 'interrupted');
  await store.unsafeQuery(
    `INSERT INTO il_requests (id, thread_id, checkpoint_id, tool_call_id, tool, args, action_hash, reason, rule_id, tier, role,
       approvals_required, approvals_received, version, status, proposer, evidence, context, on_timeout, escalate_to, trustable,
       resolution, parent_id, superseded_by, created_at, expires_at, updated_at, resolved_at)
     VALUES ('apr_old', 'reviewed', NULL, 'call_1', 'issue_refund', '{"amount":900}', 'h', 'over $500', 'large', 'approve', 'supervisor',
       1, 1, 2, 'executed', 'agent:support', '{}', '{}', 'reject', NULL, 1, NULL, NULL, NULL, 1500, 99999, 1600, 1600)`,
  );
  await store.unsafeQuery(
    `INSERT INTO il_executions (key, request_id, thread_id, tool, args, action_hash, status, lease_owner, lease_until, attempts, result, error, created_at, updated_at)
     VALUES ('alone:call_1', NULL, 'alone', 'look_up_order', '{}', 'h', 'succeeded', NULL, NULL, 1, 'null', NULL, 1200, 1200)`,
  );
}

describe('migration 5 (oversight) on a database with history', () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-ov-mig-'));
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
    sqlite: async () => createSqliteStore({ path: join(dir, 'v4.db') }),
    postgres: async () => {
      const s = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema, max: 2 });
      await s.unsafeQuery(`CREATE SCHEMA ${schema}`);
      return s;
    },
  };

  for (const backend of ['sqlite', 'postgres'] as const)
    it(`${backend}: the history keeps its meaning under the new figures`, async () => {
      const store = await open[backend]();
      stores.push(store);
      await version4WithData(store, backend);
      await store.migrate();
      assert.deepEqual(await store.countFinishedThreads(0, 10_000), { finished: 3, withoutPerson: 2 });
      assert.deepEqual(await store.countAutoCalls(0, 10_000), [{ tool: 'look_up_order', tier: 'auto', count: 1 }]);
      const req = await store.getRequest('apr_old');
      assert.equal(req?.planted, undefined, 'a real request');
      assert.equal((await store.listRequests({ planted: false })).items.length, 1);
      assert.equal((await store.listRequests({ planted: true })).items.length, 0);
      // The waiting thread, once finished, does not count as autonomous.
      await store.updateThread('waiting', { status: 'completed' }, 3000);
      assert.deepEqual(await store.countFinishedThreads(0, 10_000), { finished: 4, withoutPerson: 2 });
    });
});
