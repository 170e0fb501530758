import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { scriptedModel, type ScriptContext, type ScriptStep } from '../testing/scripted-model.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportTools } from '../testing/support-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createAgent } from '../agent/index.ts';
import { createWorker } from './worker.ts';
import type { PolicyConfig } from '../core/index.ts';
import type { Store } from '../store/types.ts';

/** Refunds need a supervisor within 2 s, else they are rejected. */
const policy: PolicyConfig = {
  tools: {
    issue_refund: [{ id: 'large', tier: 'approve', role: 'supervisor', timeout: '2s', reason: 'refund' }],
  },
};

function script(ctx: ScriptContext): ScriptStep {
  if (ctx.lastToolResults.length) return { text: 'done' };
  return { toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-1', customerId: 'c-1', amount: 850 } }] };
}

for (const backend of allBackends()) {
  describe(`sweeper on ${backend.name}: a wall clock stepped back`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy, now: clock.now, owner: 'w1' });
    });
    after(() => backend.destroy());

    it(
      'still applies a timeout default within its interval after a 10-minute backward step',
      { timeout: 60_000 },
      async (t) => {
        const agent = createAgent({
          name: 'support',
          version: '1',
          model: scriptedModel(script),
          system: 's',
          tools: supportTools(new FakePayments()),
          interlock: il,
        });
        const w = createWorker({ interlock: il, agents: [agent], sweepMs: 5, pollMs: 5 });
        await w.runOnce(); // a sweep at the wall time before the step
        clock.set(clock.now() - 10 * 60_000);
        const r = await agent.invoke('refund', { threadId: `step-${backend.name}` });
        const id = r.interrupts[0]!.id;
        clock.advance(3000); // past the 2 s timeout, on the stepped clock
        const expired = new Promise<void>((resolve, reject) => {
          // A hang ends as a failure with the worker stopped, not as a process that never exits.
          t.signal.addEventListener('abort', () => reject(new Error('the sweeper never expired the request')));
          const off = il.on((e) => {
            if (e.type === 'approval.expired' && e.requestId === id) {
              off();
              resolve();
            }
          });
        });
        w.start();
        try {
          // With wall-time cadence the sweeper would wait out the 10 minutes; the test's timeout catches that.
          await expired;
        } finally {
          await w.stop();
        }
        assert.equal((await il.getRequestOrThrow(id)).status, 'expired');
        assert.equal(w.stats.expired, 1);
      },
    );
  });
}
