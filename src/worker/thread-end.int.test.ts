import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportPolicy, supportScript, supportTools } from '../testing/support-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createAgent } from '../agent/index.ts';
import type { Store } from '../store/types.ts';
import { handleResume } from './resume.ts';

const sam = { id: 'sam', roles: ['supervisor', 'retention_lead'] };

for (const backend of allBackends()) {
  describe(`a thread that ends for good cancels its open requests, on ${backend.name}`, () => {
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

    const agentV = (version: string) =>
      createAgent({
        name: 'support',
        version,
        model: scriptedModel(supportScript),
        system: 's',
        tools: supportTools(pay),
        interlock: il,
      });

    /** A thread waiting on two requests: the refund approved (authorized, not run yet), the cancellation pending. */
    async function halfApproved() {
      const threadId = `end-${backend.name}-${++n}`;
      const r = await agentV('1.0.0').invoke('refund $850 and cancel', { threadId });
      assert.equal(r.interrupts.length, 2);
      const reqs = await Promise.all(r.interrupts.map((i) => il.getRequestOrThrow(i.id)));
      const refund = reqs.find((q) => q.tool === 'issue_refund')!;
      const cancel = reqs.find((q) => q.tool === 'cancel_subscription')!;
      const d = await il.decide(
        refund.id,
        { type: 'approve', expectedVersion: refund.version, actionHash: refund.actionHash },
        sam,
      );
      assert.equal(d.outcome, 'authorized');
      return { threadId, refund, cancel };
    }

    async function assertCancelled(threadId: string, ids: string[], threadStatus: string) {
      assert.equal((await store.getThread(threadId))?.status, threadStatus);
      for (const id of ids)
        assert.equal((await store.getRequest(id))?.status, 'cancelled', `request ${id} is cancelled`);
      const events = await store.listAudit({ threadId });
      const cancelled = events.filter((e) => e.type === 'cancelled');
      assert.deepEqual(
        cancelled.map((e) => e.requestId).sort(),
        [...ids].sort(),
        'one cancelled event per open request',
      );
      assert.deepEqual(cancelled.map((e) => e.payload.from).sort(), ['authorized', 'pending']);
      const [open] = ids;
      const req = (await store.getRequest(open!))!;
      await assert.rejects(
        il.decide(req.id, { type: 'reject', expectedVersion: req.version, actionHash: req.actionHash }, sam),
        { code: 'already_resolved' },
      );
    }

    it('a thread the worker gives up on (failed): its pending and authorized requests are cancelled, with audit events', async () => {
      const { threadId, refund, cancel } = await halfApproved();
      // A build that cannot read the checkpoint (another major version) resumes it, and gives up.
      const [job] = await store.claimJobs(['resume'], 'w1', clock.now(), clock.now() + 60_000, 10);
      assert.ok(job);
      const out = await handleResume(
        { interlock: il, agents: new Map([['support', agentV('2.0.0')]]), owner: 'w1', maxAttempts: 1 },
        job,
      );
      assert.equal(out, 'dead');
      await assertCancelled(threadId, [refund.id, cancel.id], 'failed');
      const types = (await store.listAudit({ threadId })).map((e) => e.type);
      assert.ok(
        types.indexOf('failed') < types.indexOf('cancelled'),
        'the failure is recorded, then what it cancelled',
      );
      assert.equal(pay.effects.length, 0, 'nothing ran');
    });

    it('an aborted paused thread: its pending and authorized requests are cancelled, with audit events', async () => {
      const { threadId, refund, cancel } = await halfApproved();
      await agentV('1.0.0').abort(threadId, 'operator:olga');
      await assertCancelled(threadId, [refund.id, cancel.id], 'aborted');
      assert.equal(pay.effects.length, 0, 'nothing ran');
    });
  });
}
