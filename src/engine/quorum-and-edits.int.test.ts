import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { createInterlock, type Interlock } from './interlock.ts';
import { decisionsFor, type ApprovalRequest, type PolicyConfig, type Reviewer } from '../core/index.ts';
import type { Store } from '../store/types.ts';

// Not strict: zod would drop unknown keys silently, which is what the engine must not let happen.
const refundSchema = z.object({ orderId: z.string(), customerId: z.string(), amount: z.number().positive() });

const policy: PolicyConfig = {
  tools: {
    issue_refund: [
      {
        id: 'large',
        tier: 'approve',
        role: 'supervisor',
        timeout: '30m',
        reason: 'refund over $500',
        when: ({ args }) => Number(args.amount) > 500,
      },
      {
        id: 'huge',
        tier: 'escalate',
        role: 'supervisor',
        approvals: 2,
        timeout: '30m',
        reason: 'refund over $2,000',
        when: ({ args }) => Number(args.amount) > 2000,
      },
    ],
  },
};

const alice: Reviewer = { id: 'alice', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`quorum votes and edit fields on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy, tools: { issue_refund: { schema: refundSchema } }, now: clock.now });
    });
    after(() => backend.destroy());

    async function pauseRefund(amount: number): Promise<ApprovalRequest> {
      const call = { tool: 'issue_refund', args: { orderId: `ORD-${++n}`, customerId: 'c1', amount } };
      const { requests } = await il.pause({
        thread: { id: `qe-${backend.name}-${n}`, agent: 'support', agentVersion: '1' },
        checkpoint: { newMessages: [], state: {}, schemaVersion: 1 },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: 'agent:support',
      });
      return requests[0]!;
    }

    it('a reviewer whose approval counted toward a quorum may still reject it while it is pending, but not approve twice', async () => {
      const req = await pauseRefund(2500);
      const first = await il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        alice,
      );
      assert.equal(first.outcome, 'pending');
      const now = first.request;
      assert.deepEqual(decisionsFor(now, alice, await store.listVoters(req.id), clock.now()), [
        'edit',
        'reject',
        'respond',
      ]);
      await assert.rejects(
        il.decide(req.id, { type: 'approve', expectedVersion: now.version, actionHash: now.actionHash }, alice),
        { code: 'duplicate_reviewer' },
      );
      const changed = await il.decide(
        req.id,
        { type: 'reject', message: 'on second thought, no', expectedVersion: now.version, actionHash: now.actionHash },
        alice,
      );
      assert.equal(changed.outcome, 'rejected');
      assert.equal((await store.getRequest(req.id))?.status, 'rejected');
      assert.deepEqual(await store.listVoters(req.id), [], 'the reject replaced the approval');
      const types = (await store.listAudit({ requestId: req.id })).map((e) => e.type);
      assert.deepEqual(
        types.filter((t) => t !== 'refused'),
        ['interrupted', 'approved', 'rejected'],
      );
    });

    it('an edit that adds a field the tool does not take is refused, naming the field, and changes nothing', async () => {
      const req = await pauseRefund(850);
      const auditBefore = await store.listAudit({ requestId: req.id });
      await assert.rejects(
        il.decide(
          req.id,
          {
            type: 'edit',
            args: { ...req.args, amount: 800, bankAccount: 'DE00 1234' },
            expectedVersion: req.version,
            actionHash: req.actionHash,
          },
          alice,
        ),
        (e: Error & { code?: string; details?: { fields?: string[] } }) =>
          e.code === 'unknown_field' &&
          /args\.bankAccount/.test(e.message) &&
          e.details?.fields?.[0] === 'args.bankAccount',
      );
      const after1 = await store.getRequest(req.id);
      assert.equal(after1?.status, 'pending');
      assert.equal(after1?.version, req.version);
      assert.deepEqual(await store.listAudit({ requestId: req.id }), auditBefore);
      // Without the extra field the same edit goes through.
      const ok = await il.decide(
        req.id,
        { type: 'edit', args: { ...req.args, amount: 800 }, expectedVersion: req.version, actionHash: req.actionHash },
        alice,
      );
      assert.equal(ok.outcome, 'authorized');
    });
  });
}
