/**
 * Leases that outlive their time: a run's writes are fenced by its thread
 * lease, a run and a side effect renew their leases while they go on, and a
 * lease is only ever given back by its holder. Both backends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportPolicy, supportScript, supportTools } from '../testing/support-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { InterlockError } from '../core/index.ts';
import { createAgent, type AgentOptions } from './index.ts';
import type { LanguageModel } from './model.ts';
import type { Store } from '../store/types.ts';

/** The support script's model, held at the gate on each call until `release()`. */
function heldModel(): { model: LanguageModel; entered: Promise<void>; release: () => void } {
  const base = scriptedModel(supportScript);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let enter!: () => void;
  const entered = new Promise<void>((r) => (enter = r));
  const model: LanguageModel = {
    ...base,
    async doGenerate(o) {
      enter();
      await gate;
      return base.doGenerate(o);
    },
  };
  return { model, entered, release };
}

for (const backend of allBackends()) {
  describe(`leases on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();
    let n = 0;
    const tid = () => `lease-${backend.name}-${++n}`;
    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: supportPolicy, now: clock.now });
    });
    after(() => backend.destroy());

    const agentWith = (model: LanguageModel, extra: Partial<AgentOptions> = {}, interlock = il) =>
      createAgent({
        name: 'support',
        version: '1.0.0',
        model,
        system: 'You help customers.',
        tools: supportTools(new FakePayments()),
        interlock,
        ...extra,
      });

    it("a run that outlived its lease writes nothing once another run holds the thread, and does not give that run's lease back", async () => {
      const threadId = tid();
      const a = heldModel();
      const runA = agentWith(a.model).invoke('please look up my order', { threadId });
      await a.entered; // A holds the lease and waits on its model
      clock.advance(61_000); // A's lease (60 s) has run out: another run may take the thread
      const b = heldModel();
      const runB = agentWith(b.model).invoke('please look up my order', { threadId });
      await b.entered; // B holds the lease now
      const bOwner = (await store.getThread(threadId))?.leaseOwner;
      assert.ok(bOwner);

      a.release();
      await assert.rejects(runA, (err) => err instanceof InterlockError && err.code === 'lease_lost');
      const mid = await store.getThread(threadId);
      assert.equal(mid?.leaseOwner, bOwner, "A's failure must not release B's lease");
      assert.deepEqual(await store.listMessages(threadId), [], 'A wrote nothing');

      b.release();
      const r = await runB;
      assert.equal(r.stopReason, 'end_turn');
      const stored = await store.listMessages(threadId);
      assert.deepEqual(
        stored.map((m) => (m as { role: string }).role),
        ['user', 'assistant', 'tool', 'assistant'],
      );
      assert.equal((await store.getThread(threadId))?.leaseOwner, null);
    });

    it('a run slower than its lease renews it: a second run of the thread meanwhile is busy, not a takeover', async () => {
      const real = createInterlock({ store, policy: supportPolicy });
      const threadId = tid();
      const base = scriptedModel(supportScript);
      const slow: LanguageModel = {
        ...base,
        async doGenerate(o) {
          await sleep(500);
          return base.doGenerate(o);
        },
      };
      const runA = agentWith(slow, { leaseMs: 150 }, real).invoke('please look up my order', { threadId });
      await sleep(350); // well past the 150 ms lease, had it not been renewed
      const second = await agentWith(scriptedModel(supportScript), { leaseMs: 150 }, real).invoke(null, { threadId });
      assert.equal(second.stopReason, 'busy');
      const r = await runA;
      assert.equal(r.stopReason, 'end_turn');
    });

    it("a side effect slower than its claim's lease renews it: the same key elsewhere is in progress, not run again", async () => {
      const p1 = createInterlock({ store, policy: supportPolicy });
      const p2 = createInterlock({ store, policy: supportPolicy });
      const key = `slow-${tid()}`;
      let runs = 0;
      const first = p1.executeOnce(
        { key, tool: 'look_up_order', args: { orderId: 'ORD-1' } },
        async () => {
          runs++;
          await sleep(600);
          return 'done';
        },
        { leaseMs: 150 },
      );
      await sleep(350);
      const second = await p2.executeOnce(
        { key, tool: 'look_up_order', args: { orderId: 'ORD-1' } },
        async () => {
          runs++;
          return 'again';
        },
        { leaseMs: 150 },
      );
      assert.equal(second.status, 'in_progress');
      const out = await first;
      assert.deepEqual([out.status, runs], ['succeeded', 1]);
    });
  });
}
