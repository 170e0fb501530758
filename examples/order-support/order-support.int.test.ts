import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../../src/testing/index.ts';
import { createInterlock, type Interlock, type Reviewer } from '../../src/index.ts';
import { createOrderSupportAgent } from './agent.ts';
import { orderSupportPolicy } from './policy.ts';
import { orderSupportScriptedModel } from './scripted-support-model.ts';
import { createShopBackend } from './tools.ts';
import type { Store } from '../../src/store/types.ts';

const supervisor: Reviewer = { id: 'sam', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`order-support example on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: orderSupportPolicy });
    });
    after(() => backend.destroy());
    const setup = () => {
      const shop = createShopBackend();
      return { shop, agent: createOrderSupportAgent({ interlock: il, model: orderSupportScriptedModel(), shop }) };
    };

    it('runs a partial refund of $40 alone', async () => {
      const { shop, agent } = setup();
      const r = await agent.invoke('partial refund of $40 for order ORD-100', { threadId: `os-${backend.name}-2` });
      assert.equal(r.stopReason, 'end_turn');
      assert.match(r.text, /refunded \$40/);
      assert.equal(shop.refunds[0]?.amount, 40);
    });

    it('pauses on a $850 refund, and after approval refunds once', async () => {
      const { shop, agent } = setup();
      const r = await agent.invoke('I need a full refund for order ORD-999', { threadId: `os-${backend.name}-1` });
      assert.equal(r.stopReason, 'interrupt');
      assert.equal(r.interrupts[0]?.name, 'issue_refund');
      assert.equal(r.interrupts[0]?.args?.amount, 850);
      const done = await agent.invoke(null, {
        threadId: r.threadId,
        responses: { [r.interrupts[0].id]: { type: 'approve' } },
        reviewer: supervisor,
      });
      assert.match(done.text, /refunded \$850 for order ORD-999/);
      assert.equal(shop.refunds.length, 1);
      // Small refunds add up: after $850 today, another $40 for the same customer escalates.
      const more = await agent.invoke('partial refund of $40 for order ORD-100', { threadId: `os-${backend.name}-1b` });
      assert.equal(more.interrupts[0]?.tier, 'escalate');
      assert.match(more.interrupts[0].reason, /within 24 h/);
    });

    it('shows the reviewer earlier refunds of the order and customer, and refuses refunds that add up past the order total', async () => {
      const { shop, agent } = setup();
      const first = await agent.invoke('partial refund of $60 for order ORD-506', {
        threadId: `os-${backend.name}-cum-1`,
      });
      assert.equal(first.stopReason, 'end_turn');
      // $60 already refunded on the $95 order: the next $50 pauses (velocity) and the card shows what was refunded.
      const second = await agent.invoke('partial refund of $50 for order ORD-506', {
        threadId: `os-${backend.name}-cum-2`,
      });
      assert.equal(second.stopReason, 'interrupt');
      const req = await il.getRequestOrThrow(second.interrupts[0]!.id);
      assert.deepEqual(
        {
          total: req.evidence.orderTotal,
          refunded: req.evidence.refundedOnThisOrder,
          customer: req.evidence.earlierRefundsOfThisCustomer,
        },
        { total: 95, refunded: 60, customer: ['ORD-506: $60'] },
      );
      // Approved anyway, the shop refuses it: $60 + $50 would pass the $95 total. Nothing more is refunded.
      const done = await agent.invoke(null, {
        threadId: second.threadId,
        responses: { [second.interrupts[0]!.id]: { type: 'approve' } },
        reviewer: supervisor,
      });
      assert.equal(done.stopReason, 'end_turn');
      assert.deepEqual(
        shop.refunds.map((r) => r.amount),
        [60],
      );
      const audit = await store.listAudit({ requestId: req.id });
      assert.match(
        String(audit.find((e) => e.type === 'failed')?.payload.error),
        /on top of \$60 already refunded exceeds the order total \$95/,
      );
    });

    it('offers store credit after a rejection', async () => {
      const { shop, agent } = setup();
      const r = await agent.invoke('I need a full refund for order ORD-999', { threadId: `os-${backend.name}-3` });
      const done = await agent.invoke(null, {
        threadId: r.threadId,
        responses: { [r.interrupts[0]!.id]: { type: 'reject', message: 'outside the 30-day window' } },
        reviewer: supervisor,
      });
      assert.match(done.text, /store credit/);
      assert.match(done.text, /30-day window/);
      assert.equal(shop.refunds.length, 0);
    });

    it('routes cancellations to retention and address changes to logistics (escalated), and blocks deletion', async () => {
      const { agent } = setup();
      const c = await agent.invoke('please cancel my subscription SUB-7', { threadId: `os-${backend.name}-4` });
      assert.equal(c.interrupts[0]?.role, 'retention_lead');
      const a = await agent.invoke('change the delivery address of order ORD-78291 to 123 New St', {
        threadId: `os-${backend.name}-5`,
      });
      assert.equal(a.interrupts[0]?.tier, 'escalate');
      assert.match(a.interrupts[0].message, /escalated/);
      const d = await agent.invoke('delete my account', { threadId: `os-${backend.name}-6` });
      assert.match(d.text, /not something I can do/);
    });
  });
}
