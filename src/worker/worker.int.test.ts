import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { scriptedModel, type ScriptContext, type ScriptStep } from '../testing/scripted-model.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportPolicy, supportTools } from '../testing/support-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createAgent } from '../agent/index.ts';
import { createWorker } from './worker.ts';
import type { Store } from '../store/types.ts';

function script(ctx: ScriptContext): ScriptStep {
  if (ctx.lastToolResults.length)
    return { text: `Result: ${JSON.stringify(ctx.lastToolResults.map((r) => r.output))}` };
  return { toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-999', customerId: 'test-001', amount: 850 } }] };
}

for (const backend of allBackends()) {
  describe(`worker on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();
    const pay = new FakePayments();
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: supportPolicy, now: clock.now, owner: 'w1' });
    });
    after(() => backend.destroy());

    const agentFor = (i: Interlock) =>
      createAgent({
        name: 'support',
        version: '1',
        model: scriptedModel(script),
        system: 's',
        tools: supportTools(pay),
        interlock: i,
      });

    async function pausedThread(i: Interlock) {
      const threadId = `w-${backend.name}-${++n}`;
      const r = await agentFor(i).invoke('refund', { threadId });
      const req = await i.getRequestOrThrow(r.interrupts[0]!.id);
      return { threadId, req };
    }

    it('resumes a thread after a decision, once', async () => {
      const { threadId, req } = await pausedThread(il);
      await il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        { id: 'sam', roles: ['supervisor'] },
      );
      const w = createWorker({ interlock: il, agents: [agentFor(il)], sweepMs: 0 });
      const before = pay.count('refund');
      assert.equal(await w.runOnce(), 1);
      assert.equal(await w.runOnce(), 0, 'nothing left');
      assert.equal((await store.getThread(threadId))?.status, 'completed');
      assert.equal(pay.count('refund'), before + 1);
      assert.equal((await store.listJobs({ requestId: req.id, kind: 'resume' }))[0]?.status, 'done');
    });

    it('hands a job abandoned by a killed worker to another after its lease; the refund happens once', async () => {
      const { threadId, req } = await pausedThread(il);
      await il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        { id: 'sam', roles: ['supervisor'] },
      );
      // The "killed" worker claimed the job and the execution, then died.
      const now = clock.now();
      const claimed = await store.claimJobs(['resume'], 'dead-worker', now, now + 60_000, 10);
      assert.equal(claimed.length, 1);
      const w = createWorker({ interlock: il, agents: [agentFor(il)], sweepMs: 0 });
      assert.equal(await w.runOnce(), 0, 'the lease is still live');
      clock.advance(61_000);
      const before = pay.count('refund');
      assert.equal(await w.runOnce(), 1);
      assert.equal((await store.getThread(threadId))?.status, 'completed');
      assert.equal(pay.count('refund'), before + 1);
    });

    it('two workers racing the same jobs execute each action once', async () => {
      const il2 = createInterlock({
        store: await backend.create(),
        policy: supportPolicy,
        now: clock.now,
        owner: 'w2',
      });
      const threads = [];
      for (let i = 0; i < 6; i++) threads.push(await pausedThread(il));
      for (const t of threads)
        await il.decide(
          t.req.id,
          { type: 'approve', expectedVersion: t.req.version, actionHash: t.req.actionHash },
          { id: 'sam', roles: ['supervisor'] },
        );
      const before = pay.count('refund');
      const w1 = createWorker({ interlock: il, agents: [agentFor(il)], sweepMs: 0, batch: 2 });
      const w2 = createWorker({ interlock: il2, agents: [agentFor(il2)], sweepMs: 0, batch: 2 });
      for (let round = 0; round < 10; round++) await Promise.all([w1.runOnce(), w2.runOnce()]);
      assert.equal(pay.count('refund'), before + 6);
      for (const t of threads) assert.equal((await store.getThread(t.threadId))?.status, 'completed');
      const keys = pay.effects.map((e) => e.idempotencyKey);
      assert.equal(new Set(keys).size, keys.length, 'no idempotency key applied twice');
    });

    it('sweeps expired requests and resumes the thread with the timeout default', async () => {
      const { threadId, req } = await pausedThread(il);
      clock.advance(31 * 60_000);
      const w = createWorker({ interlock: il, agents: [agentFor(il)], sweepMs: 1 });
      await w.runOnce();
      await w.runOnce();
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'expired');
      assert.equal((await store.getThread(threadId))?.status, 'completed');
      const msgs = await store.listMessages(threadId);
      assert.match(JSON.stringify(msgs), /deadline/);
    });

    it('starts, polls, and stops gracefully', async () => {
      const { threadId, req } = await pausedThread(il);
      const w = createWorker({ interlock: il, agents: [agentFor(il)], sweepMs: 0, pollMs: 20 });
      w.start();
      await il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        { id: 'sam', roles: ['supervisor'] },
      );
      for (let i = 0; i < 100 && (await store.getThread(threadId))?.status !== 'completed'; i++)
        await new Promise((r) => setTimeout(r, 20));
      await w.stop();
      assert.equal((await store.getThread(threadId))?.status, 'completed');
    });
  });
}
