import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportPolicy, supportScript, supportTools } from '../testing/support-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createAgent } from '../agent/index.ts';
import { createMetrics } from '../server/metrics.ts';
import type { Store } from '../store/types.ts';
import { createWorker } from './worker.ts';

const sam = { id: 'sam', roles: ['supervisor'] };
const LIMIT = 60_000;

for (const backend of allBackends()) {
  describe(`a worker without the thread's agent leaves its job for one that has it, on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();
    const pay = new FakePayments();
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: supportPolicy, now: clock.now, owner: 'w' });
    });
    after(() => backend.destroy());

    const agent = () =>
      createAgent({
        name: 'support',
        version: '1',
        model: scriptedModel(supportScript),
        system: 's',
        tools: supportTools(pay),
        interlock: il,
      });

    async function approvedThread() {
      const threadId = `ua-${backend.name}-${++n}`;
      const r = await agent().invoke('refund $850', { threadId });
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      return { threadId, req };
    }

    it('defers with one warning and a metric per deferral, and the worker that has the agent completes the thread', async () => {
      const { threadId, req } = await approvedThread();
      const warnings: string[] = [];
      const metrics = createMetrics(il);
      const old = createWorker({
        interlock: il,
        agents: [],
        sweepMs: 0,
        unknownAgentMs: LIMIT,
        onWarning: (m) => warnings.push(m),
      });
      await old.runOnce();
      clock.advance(2001);
      await old.runOnce();
      assert.equal(old.stats.deferred, 2);
      assert.equal(old.stats.dead, 0);
      assert.equal((await store.getThread(threadId))?.status, 'interrupted', 'the thread is not failed');
      assert.equal((await store.getRequest(req.id))?.status, 'authorized');
      assert.equal(warnings.length, 1, 'one warning per job, not one per poll');
      assert.match(warnings[0]!, /agent "support"/);
      assert.match(await metrics.render(), /interlock_jobs_deferred_total\{reason="unknown_agent"\} 2/);
      metrics.dispose();

      clock.advance(2001);
      const current = createWorker({ interlock: il, agents: [agent()], sweepMs: 0 });
      await current.runOnce();
      assert.equal((await store.getThread(threadId))?.status, 'completed');
      assert.equal((await store.getRequest(req.id))?.status, 'executed');
    });

    it('fails the thread (and cancels its open requests) only after the limit', async () => {
      const { threadId, req } = await approvedThread();
      const old = createWorker({
        interlock: il,
        agents: [],
        sweepMs: 0,
        unknownAgentMs: LIMIT,
        onWarning: () => undefined,
      });
      await old.runOnce();
      assert.equal((await store.getThread(threadId))?.status, 'interrupted');
      clock.advance(LIMIT);
      await old.runOnce();
      assert.equal(old.stats.dead, 1);
      assert.equal((await store.getThread(threadId))?.status, 'failed');
      assert.equal((await store.getRequest(req.id))?.status, 'cancelled');
      const failed = (await store.listAudit({ threadId })).find((e) => e.type === 'failed');
      assert.match(String(failed?.payload.error), /no worker with an agent named "support"/);
    });

    it('refuses a bad limit when the worker is created', () => {
      assert.throws(() => createWorker({ interlock: il, agents: [], unknownAgentMs: -1 }), { code: 'invalid_config' });
    });
  });
}
