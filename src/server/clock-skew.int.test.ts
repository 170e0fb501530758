import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { TEST_DATABASE_URL } from '../testing/backends.ts';
import { createPostgresStore } from '../store/postgres/postgres-store.ts';
import { createSqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { Store } from '../store/types.ts';
import type { PolicyConfig } from '../core/index.ts';
import { createInterlock, type Interlock } from '../engine/interlock.ts';
import { createMetrics } from './metrics.ts';
import { healthRoutes } from './routes/health.ts';

const HOUR = 3_600_000;
const policy: PolicyConfig = {
  tools: {
    refund: [{ id: 'r', tier: 'approve', role: 'supervisor', timeout: '1h', reason: 'refunds' }],
    lookup: [{ id: 'l', tier: 'auto', reason: 'reads' }],
  },
};

// Two processes on one PostgreSQL database; B's clock runs an hour ahead. Date.now itself is skewed
// while the test runs (as on B's host), and A — the process whose clock agrees with the database —
// is given the true clock: anything in B that judged time by its own clock would run an hour ahead.
describe('one clock for all processes on postgres: a process skewed by +1 h', () => {
  const schema = `il_test_${randomBytes(6).toString('hex')}`;
  const realNow = Date.now;
  const warnings: string[] = [];
  const stores: Store[] = [];
  let a: Interlock;
  let b: Interlock;

  before(async () => {
    const open = async (o: Parameters<typeof createPostgresStore>[0]) => {
      const s = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema, max: 4, ...o });
      stores.push(s);
      await s.migrate();
      return s;
    };
    const storeA = await open({ processClocks: { wall: realNow }, warn: () => undefined });
    a = createInterlock({ store: storeA, policy, owner: 'process-a', now: () => storeA.clock!.now() });
    Date.now = () => realNow() + HOUR;
    b = createInterlock({ store: await open({ warn: (m) => warnings.push(m) }), policy, owner: 'process-b' });
  });
  after(async () => {
    Date.now = realNow;
    for (const s of stores) await s.close();
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });

  it('measures the offset and says so: one warning, the metric, /readyz detail (still 200)', async () => {
    const skew = b.clockSkew()!;
    assert.equal(skew.skewed, true);
    assert.ok(skew.offsetMs! < -HOUR / 2, `offset ${skew.offsetMs} ms, expected about -1 h`);
    assert.equal(a.clockSkew()!.skewed, false);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /ahead of the database's/);

    const text = await createMetrics(b).render();
    assert.match(text, /^interlock_clock_skewed 1$/m);
    const offset = Number(/^interlock_clock_offset_seconds (\S+)$/m.exec(text)?.[1]);
    assert.ok(offset < -HOUR / 2000, `metric offset ${offset}`);

    const app = healthRoutes(
      { name: 'postgres', getAuditHeads: () => b.audit.getAuditHeads(), clockSkew: () => b.clockSkew() },
      { readyTimeoutMs: 5000 },
    );
    const res = await app.request('/readyz');
    assert.equal(res.status, 200);
    const body = (await res.json()) as { clock: { skewed: boolean; offsetMs: number; message: string } };
    assert.equal(body.clock.skewed, true);
    assert.equal(body.clock.offsetMs, skew.offsetMs);
    assert.match(body.clock.message, /time sync/);
  });

  it('does not take over an execution the other process still holds', async () => {
    const key = `k-${randomBytes(4).toString('hex')}`;
    const call = { key, tool: 'lookup', args: { id: 1 } };
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let runs = 0;
    const first = a.executeOnce(call, async () => {
      runs++;
      started();
      await held;
      return 'a';
    });
    await running;
    const second = await b.executeOnce(call, async () => {
      runs++;
      return 'b';
    });
    assert.equal(second.status, 'in_progress', 'the lease is judged in database time: still live');
    release();
    const out = await first;
    assert.deepEqual([out.status, runs], ['succeeded', 1]);
  });

  it('does not expire a request created a second ago with a 1 h timeout', async () => {
    const call = { tool: 'refund', args: { amount: 10 } };
    const { requests } = await a.pause({
      thread: { id: `t-${randomBytes(4).toString('hex')}`, agent: 'support', agentVersion: '1' },
      items: [{ call, verdict: await a.gate(call) }],
      proposer: 'agent:support',
    });
    const req = requests[0]!;
    const expired = await b.expireDue();
    assert.deepEqual(
      expired.map((r) => r.id).filter((id) => id === req.id),
      [],
    );
    assert.equal((await b.getRequestOrThrow(req.id)).status, 'pending');
    // The request's times are the database's, whichever process wrote them.
    assert.ok(req.expiresAt - req.createdAt === HOUR);
  });

  it('audit times written by both processes stay in order along each chain, and verify finds nothing', async () => {
    for (let i = 0; i < 6; i++) {
      const who = i % 2 ? a : b;
      await who.executeOnce(
        { key: `order-${i}-${randomBytes(3).toString('hex')}`, tool: 'lookup', args: { i } },
        async () => i,
      );
    }
    const events = await stores[0]!.listAudit({ limit: 1000 });
    assert.ok(events.length >= 6);
    const lastAt = new Map<number | null, number>();
    for (const e of [...events].sort((x, y) => x.seq - y.seq)) {
      const prev = lastAt.get(e.chain) ?? -Infinity;
      assert.ok(e.at >= prev, `event ${e.seq} at ${e.at} is before ${prev} in chain ${e.chain}`);
      lastAt.set(e.chain, e.at);
    }
    const verdict = await b.verifyAudit();
    assert.equal(verdict.ok, true);
    assert.equal(verdict.findings, undefined);
  });
});

describe('the clock on readiness and metrics', () => {
  it('a PostgreSQL store whose offset cannot be measured is not ready (503 clock_unknown)', async () => {
    // A database that refuses connections: the measurement each readiness probe starts cannot succeed.
    const store = createPostgresStore({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      connectTimeoutMs: 500,
    });
    try {
      const il = createInterlock({ store, policy });
      assert.equal(il.clockSkew()?.offsetMs, null);
      const res = await healthRoutes(
        { name: 'postgres', getAuditHeads: async () => [], clockSkew: () => il.clockSkew() },
        { readyTimeoutMs: 5000 },
      ).request('/readyz');
      assert.equal(res.status, 503);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'clock_unknown');
    } finally {
      await store.close();
    }
  });

  it('SQLite (one process): a step of the host clock moves no time, and is reported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-clock-'));
    let step = 0;
    const warnings: string[] = [];
    try {
      const store = createSqliteStore({
        path: join(dir, 'interlock.db'),
        processClocks: { wall: () => Date.now() + step },
        warn: (m) => warnings.push(m),
      });
      await store.migrate();
      const il = createInterlock({ store, policy });
      // Within a millisecond or two: the monotonic clock is finer than the wall clock.
      const first = il.clockSkew()!;
      assert.ok(Math.abs(first.offsetMs!) <= 2 && !first.skewed && first.toleranceMs === 2000, JSON.stringify(first));
      const ready = () =>
        healthRoutes(
          { name: 'sqlite', getAuditHeads: () => il.audit.getAuditHeads(), clockSkew: () => il.clockSkew() },
          { readyTimeoutMs: 5000 },
        ).request('/readyz');
      const fresh = (await (await ready()).json()) as { status: string; clock: { offsetMs: number; skewed: boolean } };
      assert.equal(fresh.status, 'ready');
      assert.ok(Math.abs(fresh.clock.offsetMs) <= 2 && !fresh.clock.skewed, JSON.stringify(fresh));
      const t0 = store.clock!.now();
      step = -10 * 60_000;
      const t1 = store.clock!.now();
      assert.ok(t1 >= t0 && t1 - t0 < 1000, `the store's time did not move with the step (${t1 - t0} ms)`);
      const res = await ready();
      assert.equal(res.status, 200, 'a corrected step is not unreadiness');
      const body = (await res.json()) as { clock: { offsetMs: number; skewed: boolean } };
      assert.equal(body.clock.skewed, true);
      assert.ok(Math.abs(body.clock.offsetMs - 600_000) < 1000, `offset ${body.clock.offsetMs}`);
      assert.match(await createMetrics(il).render(), /^interlock_clock_skewed 1$/m);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /stepped 600 s back since this process started/);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
