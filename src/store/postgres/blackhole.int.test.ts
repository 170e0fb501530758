import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { postgresBackend, TEST_DATABASE_URL } from '../../testing/backends.ts';
import { startFaultProxy, type FaultProxy } from '../../testing/fault-proxy.ts';
import { createInterlock } from '../../engine/index.ts';
import { createApp } from '../../server/app.ts';
import { createReviewer } from '../../server/auth.ts';
import { serve, type RunningServer } from '../../server/serve.ts';
import type { Store } from '../types.ts';
import { createPostgresStore } from './postgres-store.ts';
import { resolveTimeouts } from './timeouts.ts';

type ErrorBody = { error: { code: string; message: string } };

describe('PostgreSQL behind a network that stops answering', () => {
  const backend = postgresBackend();
  let proxy: FaultProxy;
  let direct: Store;
  let proxied: URL;
  let store: Store;
  let server: RunningServer;
  let token: string;
  const logged: string[] = [];

  before(async () => {
    direct = await backend.create(); // the schema, migrated, on a connection the proxy does not touch
    proxy = await startFaultProxy({
      host: new URL(TEST_DATABASE_URL).hostname,
      port: Number(new URL(TEST_DATABASE_URL).port || 5432),
    });
    const url = new URL(TEST_DATABASE_URL);
    url.hostname = proxy.host;
    url.port = String(proxy.port);
    proxied = url;
    // Short deadlines so the test takes seconds; production defaults are 5 s and 15 s.
    store = createPostgresStore({
      connectionString: url.toString(),
      schema: backend.env().INTERLOCK_PG_SCHEMA!,
      max: 4,
      connectTimeoutMs: 300,
      statementTimeoutMs: 300,
    });
    const interlock = createInterlock({ store, policy: { tools: {} } });
    token = (await createReviewer(store, { name: 'olga', roles: ['operator'] })).token;
    const app = createApp({ interlock, logger: { error: (message) => void logged.push(message) } });
    server = await serve({ app, port: 0 });
  });
  after(async () => {
    await server?.close();
    await proxy?.close();
    await store?.close();
    await backend.destroy();
  });

  const list = async () => {
    const r = await fetch(`${server.url}/api/v1/approvals`, { headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as ErrorBody };
  };

  it('every pooled connection carries the server-side deadlines', async () => {
    const [row] = await store.unsafeQuery(
      `SELECT current_setting('statement_timeout') AS st, current_setting('idle_in_transaction_session_timeout') AS idle`,
    );
    assert.deepEqual(row, { st: '300ms', idle: '30s' });
  });

  it('answers a coded 503 store_unavailable with Retry-After while the database is unreachable, then recovers by itself', async () => {
    assert.equal((await list()).status, 200);
    proxy.blackhole();
    // Twice: once on a pooled connection whose answers vanish, once needing a new connection that never completes.
    for (let i = 0; i < 2; i++) {
      const r = await list();
      assert.equal(r.status, 503, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'store_unavailable');
      assert.ok(Number(r.retryAfter) > 0);
    }
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.ok(logged.includes('store unavailable'), 'operators see it in the log');

    proxy.forward();
    // No restart: the pool drops the dead connections and opens new ones. A few tries at most.
    let r = await list();
    for (let i = 0; i < 20 && r.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      r = await list();
    }
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
  });

  it("live events between processes resume by themselves after the listener's connection went silent", async () => {
    const listening = createPostgresStore({
      connectionString: proxied.toString(),
      schema: backend.env().INTERLOCK_PG_SCHEMA!,
      max: 1,
      connectTimeoutMs: 300,
      statementTimeoutMs: 300,
      keepAliveMs: 200,
    });
    const heard: unknown[] = [];
    try {
      await listening.events!.subscribe((m) => heard.push(m));
      await direct.events!.publish({ n: 1 });
      for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(heard, [{ n: 1 }]);
      // A notification swallowed by the network leaves the listener's connection silently dead.
      proxy.blackhole();
      await direct.events!.publish({ n: 2 });
      // The partition lasts a while: the notification reaches the proxy and is dropped there.
      await new Promise((r) => setTimeout(r, 500));
      proxy.forward();
      let n = 3;
      for (let i = 0; i < 100 && !heard.some((m) => m.n >= 3); i++) {
        await direct.events!.publish({ n: n++ });
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(
        heard.some((m) => m.n >= 3),
        `the listener never came back (heard ${JSON.stringify(heard)})`,
      );
    } finally {
      await listening.close();
    }
  });
});

describe('PostgreSQL deadlines: options, environment, defaults', () => {
  it('defaults to 5 s to connect, 15 s per statement, 30 s idle in a transaction, keepalive after 10 s', () => {
    assert.deepEqual(resolveTimeouts({}, {}), {
      connectTimeoutMs: 5000,
      statementTimeoutMs: 15_000,
      idleInTransactionTimeoutMs: 30_000,
      keepAliveMs: 10_000,
    });
  });

  it('reads INTERLOCK_PG_*_MS; an option wins over the environment', () => {
    const env = { INTERLOCK_PG_CONNECT_TIMEOUT_MS: '2000', INTERLOCK_PG_STATEMENT_TIMEOUT_MS: '0' };
    const t = resolveTimeouts({ connectTimeoutMs: 1000 }, env);
    assert.equal(t.connectTimeoutMs, 1000);
    assert.equal(t.statementTimeoutMs, 0);
  });

  it('refuses a value that is not a whole number of milliseconds, naming where it came from', () => {
    assert.throws(
      () => resolveTimeouts({}, { INTERLOCK_PG_STATEMENT_TIMEOUT_MS: '15s' }),
      /INTERLOCK_PG_STATEMENT_TIMEOUT_MS must be a whole number of milliseconds/,
    );
    assert.throws(() => resolveTimeouts({ keepAliveMs: -1 }, {}), /"keepAliveMs" must be a whole number/);
    assert.throws(
      () => createPostgresStore({ connectionString: TEST_DATABASE_URL, connectTimeoutMs: 1.5 }),
      /"connectTimeoutMs" must be a whole number/,
    );
  });
});
