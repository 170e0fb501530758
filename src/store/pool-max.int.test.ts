import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_DATABASE_URL } from '../testing/backends.ts';
import { openStore } from './open-store.ts';

describe('INTERLOCK_PG_POOL_MAX', () => {
  const schema = `il_pool_${randomBytes(4).toString('hex')}`;
  after(async () => {
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });

  it('refuses anything but a whole number of connections, before connecting', async () => {
    for (const bad of ['0', 'ten', '2.5', '5000'])
      await assert.rejects(
        openStore(TEST_DATABASE_URL, { INTERLOCK_PG_POOL_MAX: bad }),
        (e: Error & { code?: string }) => {
          assert.equal(e.code, 'invalid_config');
          assert.match(e.message, /INTERLOCK_PG_POOL_MAX must be a whole number of connections/);
          return true;
        },
      );
  });

  it('caps the connections one process opens', async () => {
    const store = await openStore(TEST_DATABASE_URL, { INTERLOCK_PG_POOL_MAX: '2', INTERLOCK_PG_SCHEMA: schema });
    try {
      const app = `il-pool-${randomBytes(3).toString('hex')}`;
      // Six slow reads at once through a pool of two: never more than two connections of this store.
      const seen: number[] = [];
      await Promise.all(
        Array.from({ length: 6 }, () =>
          store.unsafeQuery(`SELECT set_config('application_name', $1, false), pg_sleep(0.05)`, [app]),
        ),
      );
      const probe = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await probe.connect();
      const r = await probe.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`, [app]);
      seen.push((r.rows[0] as { n: number }).n);
      await probe.end();
      assert.ok(seen[0]! <= 2, `at most 2 pooled connections, saw ${seen[0]}`);
      assert.ok(seen[0]! >= 1);
    } finally {
      await store.close();
    }
  });
});
