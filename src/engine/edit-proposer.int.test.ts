import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { createInterlock, type Interlock } from './interlock.ts';
import type { ApprovalRequest, PolicyConfig, Reviewer } from '../core/index.ts';
import type { Store } from '../store/types.ts';

const refundSchema = z.object({ orderId: z.string(), customerId: z.string(), amount: z.number().positive() });

const policy: PolicyConfig = {
  tools: {
    issue_refund: {
      aggregates: { refunds24h: { fn: 'sum', field: 'amount', groupBy: 'customerId', window: '24h' } },
      rules: [
        { id: 'small', tier: 'auto', reason: 'refund up to $500' },
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
        {
          id: 'velocity',
          tier: 'escalate',
          role: 'supervisor',
          timeout: '30m',
          reason: 'refunds to this customer exceed $1,000 in 24 h',
          when: ({ args, ctx }) => (ctx.aggregates.refunds24h ?? 0) + Number(args.amount) > 1000,
        },
      ],
    },
  },
};

const alice: Reviewer = { id: 'alice', roles: ['supervisor'] };
const bob: Reviewer = { id: 'bob', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`the editor is the proposer of what they wrote, on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy, tools: { issue_refund: { schema: refundSchema } }, now: clock.now });
    });
    after(() => backend.destroy());

    async function pauseRefund(amount: number, customerId: string): Promise<ApprovalRequest> {
      const call = { tool: 'issue_refund', args: { orderId: `ORD-${++n}`, customerId, amount } };
      const verdict = await il.gate(call, {});
      const { requests } = await il.pause({
        thread: { id: `ep-${backend.name}-${n}`, agent: 'support', agentVersion: '1' },
        checkpoint: { newMessages: [], state: {}, schemaVersion: 1 },
        items: [{ call, verdict }],
        proposer: 'agent:support',
      });
      return requests[0]!;
    }
    const edit = (req: ApprovalRequest, args: Record<string, unknown>, who: Reviewer) =>
      il.decide(req.id, { type: 'edit', args, expectedVersion: req.version, actionHash: req.actionHash }, who);
    const approve = (req: ApprovalRequest, who: Reviewer) =>
      il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, who);

    it('raised tier: an $850 refund edited to $300 that the velocity rule escalates cannot be approved by its editor', async () => {
      const req = await pauseRefund(850, 'c-velocity');
      assert.equal(req.tier, 'approve');
      // Meanwhile another refund to the same customer ran: $300 more now exceeds $1,000 in 24 h.
      await il.executeOnce(
        {
          key: `prior-${backend.name}`,
          tool: 'issue_refund',
          args: { orderId: 'ORD-0', customerId: 'c-velocity', amount: 800 },
        },
        async () => ({ ok: true }),
      );
      const d = await edit(req, { ...req.args, amount: 300 }, alice);
      assert.equal(d.outcome, 'superseded');
      const created = d.newRequest!;
      assert.equal(created.tier, 'escalate');
      assert.equal(created.ruleId, 'velocity');
      assert.equal(created.approvalsRequired, 1);
      assert.equal(created.proposer, alice.id, 'the editor proposed the edited action');
      await assert.rejects(
        approve(created, alice),
        (e: Error & { code?: string }) => e.code === 'self_approval' && /edit/.test(e.message),
      );
      assert.equal((await store.getRequest(created.id))?.status, 'pending', 'the refusal changed nothing');
      assert.equal((await approve(created, bob)).outcome, 'authorized', 'another supervisor may approve it');
    });

    it('quorum: an edit of a two-approval request counts the editor once, and the editor cannot approve again', async () => {
      const req = await pauseRefund(2500, 'c-quorum');
      const d = await edit(req, { ...req.args, amount: 2400 }, alice);
      assert.equal(d.outcome, 'superseded');
      const created = d.newRequest!;
      assert.equal(created.approvalsReceived, 1);
      assert.equal(created.proposer, alice.id);
      await assert.rejects(approve(created, alice), { code: 'self_approval' });
      assert.equal((await approve(created, bob)).outcome, 'authorized');
    });

    it('same tier: the edit itself authorizes the edited action, recorded as the editor’s decision', async () => {
      const req = await pauseRefund(850, 'c-same');
      const d = await edit(req, { ...req.args, amount: 700 }, alice);
      assert.equal(d.outcome, 'authorized');
      assert.equal(d.newRequest, undefined, 'no new request for anyone to approve');
      assert.equal(d.request.resolution?.by, alice.id);
      assert.equal(d.request.args.amount, 700);
    });
  });
}
