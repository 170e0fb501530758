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
      const done = await agent.invoke(null, { threadId: r.threadId, responses: { [r.interrupts[0].id]: { type: 'approve' } }, reviewer: supervisor });
      assert.match(done.text, /refunded \$850 for order ORD-999/);
      assert.equal(shop.refunds.length, 1);
      // Small refunds add up: after $850 today, another $40 for the same customer escalates.
      const more = await agent.invoke('partial refund of $40 for order ORD-100', { threadId: `os-${backend.name}-1b` });
      assert.equal(more.interrupts[0]?.tier, 'escalate');
      assert.match(more.interrupts[0].reason, /within 24 h/);
    });

    it('offers store credit after a rejection', async () => {
      const { shop, agent } = setup();
      const r = await agent.invoke('I need a full refund for order ORD-999', { threadId: `os-${backend.name}-3` });
      const done = await agent.invoke(null, { threadId: r.threadId, responses: { [r.interrupts[0]!.id]: { type: 'reject', message: 'outside the 30-day window' } }, reviewer: supervisor });
      assert.match(done.text, /store credit/);
      assert.match(done.text, /30-day window/);
      assert.equal(shop.refunds.length, 0);
    });

    it('routes cancellations to retention and address changes to logistics (escalated), and blocks deletion', async () => {
      const { agent } = setup();
      const c = await agent.invoke('please cancel my subscription SUB-7', { threadId: `os-${backend.name}-4` });
      assert.equal(c.interrupts[0]?.role, 'retention_lead');
      const a = await agent.invoke('change the delivery address of order ORD-78291 to 123 New St', { threadId: `os-${backend.name}-5` });
      assert.equal(a.interrupts[0]?.tier, 'escalate');
      assert.match(a.interrupts[0].message, /escalated/);
      const d = await agent.invoke('delete my account', { threadId: `os-${backend.name}-6` });
      assert.match(d.text, /not something I can do/);
    });
  });
}
