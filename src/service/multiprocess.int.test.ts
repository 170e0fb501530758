import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { allBackends } from '../testing/backends.ts';
import { startFakePaymentsServer, type FakePaymentsServer } from '../testing/fake-payments-server.ts';
import { createInterlock } from '../engine/index.ts';
import type { Store } from '../store/types.ts';
import config from '../testing/fixtures/payments.config.ts';

const CLI = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
const CONFIG = fileURLToPath(new URL('../testing/fixtures/payments.config.ts', import.meta.url));

function worker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [CLI, 'worker', '--config', CONFIG], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const backend of allBackends()) {
  describe(`two worker processes on ${backend.name}`, () => {
    let store: Store;
    let payments: FakePaymentsServer;
    before(async () => {
      store = await backend.create();
      payments = await startFakePaymentsServer();
    });
    after(async () => {
      await payments.close();
      await backend.destroy();
    });

    it('a worker killed mid-job: every approved refund is executed exactly once', async () => {
      const interlock = createInterlock({ store, policy: config.policy });
      const [agent] = await config.agents({ interlock });
      const threads: string[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await agent!.invoke(`ORD-${i}`, { threadId: `mp-${backend.name}-${i}` });
        assert.equal(r.stopReason, 'interrupt');
        const req = await interlock.getRequestOrThrow(r.interrupts[0]!.id);
        await interlock.decide(
          req.id,
          { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
          { id: 'sam', roles: ['supervisor'] },
        );
        threads.push(r.threadId);
      }
      const env = { ...backend.env(), PAYMENTS_URL: payments.url, INTERLOCK_LEASE_MS: '1500', TOOL_DELAY_MS: '150' };
      const a = worker(env);
      const b = worker(env);
      try {
        // Kill one as soon as work is under way: mid-job, possibly mid-call to the payment API.
        await until('the first payment calls', () => payments.received >= 2);
        a.kill('SIGKILL');
        await until('every thread to complete', async () => {
          for (const t of threads) if ((await store.getThread(t))?.status !== 'completed') return false;
          return true;
        });
      } finally {
        a.kill('SIGKILL');
        b.kill('SIGTERM');
        await new Promise((r) => b.once('exit', r));
      }
      const perThread = new Map<string, number>();
      for (const p of payments.applied)
        perThread.set(String(p.body.threadId), (perThread.get(String(p.body.threadId)) ?? 0) + 1);
      for (const t of threads) assert.equal(perThread.get(t), 1, `thread ${t} refunded exactly once`);
      assert.equal(payments.applied.length, threads.length);
      for (const t of threads) {
        const { items } = await store.listRequests({ threadId: t });
        assert.equal(items[0]?.status, 'executed');
      }
      assert.equal((await interlock.verifyAudit()).ok, true);
    });
  });
}
