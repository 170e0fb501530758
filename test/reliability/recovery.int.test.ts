import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../../src/testing/backends.ts';
import { startFakePaymentsServer, type FakePaymentsServer } from '../../src/testing/fake-payments-server.ts';
import { serviceProcess, type ServiceProcess } from '../../src/testing/service-process.ts';
import { fetchJson } from '../../src/testing/http.ts';
import type { Store } from '../../src/store/types.ts';
import { CHAOS_CONFIG, createRunReviewers } from './crash-harness.ts';

// A thread started over HTTP runs in the process that answered 202. Before the
// thread-start recovery job (src/service/threads.ts), a SIGKILL of that process
// before the run paused or ended left the thread "running" forever: nobody
// resumed it, and when the kill came before the first checkpoint its input was
// gone too. These cases kill the service at exactly those two moments.
async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

for (const backend of allBackends()) {
  describe(`thread start recovery on ${backend.name}`, () => {
    let store: Store;
    let payments: FakePaymentsServer;
    let operator: string;
    const services: ServiceProcess[] = [];
    before(async () => {
      store = await backend.create();
      payments = await startFakePaymentsServer();
      operator = (await createRunReviewers(store)).operator.token;
    });
    after(async () => {
      for (const s of services) await s.kill();
      await payments?.close();
      await backend.destroy();
    });

    const service = async (env: Record<string, string>) => {
      const s = await serviceProcess({
        config: CHAOS_CONFIG,
        env: { ...backend.env(), PAYMENTS_URL: payments.url, INTERLOCK_LEASE_MS: '400', ...env },
      });
      services.push(s);
      await s.start();
      return s;
    };
    const startThread = async (s: ServiceProcess, threadId: string, args: Record<string, unknown>) => {
      const r = await fetchJson(`${s.url}/api/v1/threads`, {
        token: operator,
        body: { agent: 'chaos', input: JSON.stringify(args), threadId },
      });
      assert.equal(r.status, 202);
    };
    const completed = async (id: string) => (await store.getThread(id))?.status === 'completed';

    it('killed during the first model call (nothing saved yet): a worker runs the thread again from its input', async () => {
      const s = await service({ MODEL_DELAY_MS: '1500' });
      const id = `recover-model-${backend.name}`;
      await startThread(s, id, { orderId: 'ORD-R1', amount: 12 });
      await new Promise((r) => setTimeout(r, 300));
      await s.kill();
      const t = await store.getThread(id);
      assert.equal(t?.status, 'running');
      assert.equal(t?.messageCount, 0, 'killed before anything of the run was saved');
      await s.start();
      await until('the thread to complete', () => completed(id));
      const mine = payments.applied.filter((p) => p.body.threadId === id);
      assert.equal(mine.length, 1);
      assert.equal(mine[0]!.body.amount, 12);
      const types = (await store.listAudit({ threadId: id })).map((e) => e.type);
      assert.deepEqual(types, ['auto_executed', 'thread_completed']);
      await s.stop();
    });

    it('killed in the middle of an auto-tier payment call: the call is taken over with the same key and applied once', async () => {
      // The lease outlasts the call: a takeover happens only because the first process died.
      const s = await service({ TOOL_DELAY_MS: '300', INTERLOCK_LEASE_MS: '1000' });
      const id = `recover-tool-${backend.name}`;
      const before = payments.received;
      await startThread(s, id, { orderId: 'ORD-R2', amount: 7 });
      await until('the payment call', () => payments.received > before);
      await s.kill();
      assert.equal((await store.getThread(id))?.status, 'running');
      await s.start();
      await until('the thread to complete', () => completed(id));
      const mine = payments.applied.filter((p) => p.body.threadId === id);
      assert.equal(mine.length, 1, 'applied once');
      assert.equal(
        payments.received - before,
        2,
        'the retry reached the payment API with the same key, which dropped it',
      );
      const [ex] = await store.unsafeQuery('SELECT attempts, status FROM il_executions WHERE thread_id = $1', [id]);
      assert.deepEqual({ attempts: Number(ex?.attempts), status: ex?.status }, { attempts: 2, status: 'succeeded' });
      await s.stop();
    });

    it('a thread that pauses normally is left alone by its recovery job', async () => {
      const s = await service({});
      const id = `recover-none-${backend.name}`;
      await startThread(s, id, { orderId: 'ORD-R3', amount: 120 });
      await until('the pause', async () => (await store.getThread(id))?.status === 'interrupted');
      await until('the recovery job to run', async () =>
        (await store.listJobs({ threadId: id, kind: 'resume' })).every((j) => j.status === 'done'),
      );
      assert.equal((await store.getThread(id))?.status, 'interrupted');
      assert.deepEqual(
        (await store.listAudit({ threadId: id })).map((e) => e.type).filter((t) => t !== 'notified'),
        ['interrupted'],
      );
      const [cp] = await store.unsafeQuery('SELECT COUNT(*) AS n FROM il_checkpoints WHERE thread_id = $1', [id]);
      assert.equal(Number(cp?.n), 1, 'the recovery job wrote nothing');
      assert.equal((await store.listRequests({ threadId: id, status: 'pending' })).items.length, 1);
      await s.stop();
    });
  });
}
