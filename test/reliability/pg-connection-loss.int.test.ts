import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { Store } from '../../src/store/types.ts';
import { TEST_DATABASE_URL } from '../../src/testing/backends.ts';

// The small, every-run version of "PostgreSQL restarted mid-run" (the restart
// itself is in pg-restart.chaos.ts): the server ends this store's connections —
// idle ones, and one inside a transaction — as a restart or a failover does.
// Before the fix in postgres-store.ts, the 'error' a checked-out client emits
// then had no listener and crashed the whole process.
describe('PostgreSQL connections ended by the server', () => {
  const app = `il_loss_${randomBytes(4).toString('hex')}`;
  const schema = `il_test_${randomBytes(6).toString('hex')}`;
  let store: Store;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('application_name', app);
  before(async () => {
    store = createPostgresStore({ connectionString: url.toString(), schema, max: 4 });
    await store.migrate();
  });
  after(async () => {
    await store.close();
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });

  /** End every backend of this store, as `pg_ctl restart -m fast` does. */
  async function terminate(): Promise<number> {
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    try {
      const r = await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
        app,
      ]);
      return r.rowCount ?? 0;
    } finally {
      await c.end();
    }
  }

  it('a transaction whose connection is ended fails with an error, the process lives on, and the store reconnects', async () => {
    await store.getThread('warm-up');
    const now = Date.now();
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.insertThread({
          id: 'lost-1',
          agent: 'a',
          agentVersion: '1',
          status: 'running',
          messageCount: 0,
          abortRequested: false,
          metadata: {},
          createdAt: now,
          updatedAt: now,
        });
        assert.ok((await terminate()) >= 1);
        await new Promise((r) => setTimeout(r, 200)); // the client hears of it while idle in the transaction
        await tx.getThread('lost-1');
      }),
    );
    assert.equal(await store.getThread('lost-1'), undefined, 'the transaction was rolled back');
    // Idle pooled connections were ended too; the pool replaces them.
    await terminate();
    await new Promise((r) => setTimeout(r, 100));
    await store.transaction((tx) =>
      tx.insertThread({
        id: 'after-1',
        agent: 'a',
        agentVersion: '1',
        status: 'running',
        messageCount: 0,
        abortRequested: false,
        metadata: {},
        createdAt: now,
        updatedAt: now,
      }),
    );
    assert.equal((await store.getThread('after-1'))?.id, 'after-1');
  });

  it('live events keep arriving after the LISTEN connection is ended: the store listens again and tells its subscribers of the gap', async () => {
    const bus = store.events!;
    const got: unknown[] = [];
    let gaps = 0;
    const stop = await bus.subscribe(
      (m) => got.push(m),
      () => gaps++,
    );
    try {
      /** Publish until `tag` comes back, or give up after `ms`. */
      const roundTrip = async (tag: string, ms: number): Promise<boolean> => {
        const deadline = Date.now() + ms;
        while (Date.now() < deadline) {
          await bus.publish({ tag }).catch(() => undefined);
          await new Promise((r) => setTimeout(r, 100));
          if (got.some((m) => (m as { tag?: string }).tag === tag)) return true;
        }
        return false;
      };
      assert.equal(await roundTrip('before', 5000), true);
      assert.equal(gaps, 0, 'no gap before any loss');
      assert.ok((await terminate()) >= 1);
      assert.equal(await roundTrip('after', 10_000), true, 'no event arrived after the listener was ended');
      // Whatever was sent while it was down is gone: subscribers are told, so screens reload.
      assert.equal(gaps, 1, 'the subscriber was told that messages may have been missed');
    } finally {
      await stop();
    }
  });
});
