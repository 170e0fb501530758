/**
 * Related requests and current facts over HTTP: a reviewer sees the other requests on the same order
 * and customer with their sums, and the facts about the call as of now against those at the pause.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { refundSchema, startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';

type Subject = {
  key: string;
  value: string;
  open: { count: number; amount: number | null };
  executed: { count: number; amount: number | null };
  requests: Array<{ id: string; args: Record<string, unknown> }>;
  hidden: number;
};

for (const backend of allBackends()) {
  describe(`related requests and current facts on ${backend.name}`, () => {
    let f: ServerFixture;
    // The payment system: what was refunded on each order so far.
    const refunded = new Map<string, number>();
    before(async () => {
      f = await startServerFixture(backend);
      f.interlock.registerTools({
        issue_refund: {
          schema: refundSchema,
          subject: ['orderId', 'customerId'],
          facts: ({ orderId }) => ({ orderTotal: 640, refundedSoFar: refunded.get(String(orderId)) ?? 0 }),
        },
      });
    });
    after(() => f.close());

    const pause = async (orderId: string, customerId: string, amount: number, evidence = {}) => {
      const call = { tool: 'issue_refund', args: { orderId, customerId, amount } };
      const { requests } = await f.interlock.pause({
        thread: {
          id: `rel-${backend.name}-${orderId}-${amount}-${Math.random()}`,
          agent: 'support',
          agentVersion: '1',
        },
        items: [{ call, verdict: await f.interlock.gate(call), evidence }],
        proposer: 'agent:support',
      });
      return requests[0]!;
    };

    it('the card shows the other requests on its order and customer, with their sums', async () => {
      const a = await pause('ORD-7', 'cus_1', 640);
      const b = await pause('ORD-7', 'cus_2', 600);
      const c = await pause('ORD-7', 'cus_1', 700);
      await pause('ORD-8', 'cus_1', 900);
      await pause('ORD-77', 'cus_9', 999); // a value that only starts alike is not the same order
      const r = await f.call<{ subjects: Subject[] }>(`/api/v1/approvals/${a.id}/related`, 'alice');
      assert.equal(r.status, 200);
      const order = r.body.subjects.find((s) => s.key === 'orderId')!;
      assert.equal(order.value, 'ORD-7');
      assert.deepEqual(order.open, { count: 2, amount: 1300 });
      assert.deepEqual(order.requests.map((x) => x.id).sort(), [b.id, c.id].sort());
      const customer = r.body.subjects.find((s) => s.key === 'customerId')!;
      assert.equal(customer.open.count, 2, 'ORD-7 at $700 and ORD-8, both cus_1');
      assert.equal(customer.open.amount, 1600);
    });

    it('a value with LIKE wildcards matches only itself', async () => {
      const a = await pause('ORD_%1', 'cus_x', 610);
      await pause('ORDa%1', 'cus_y', 620);
      const r = await f.call<{ subjects: Subject[] }>(`/api/v1/approvals/${a.id}/related`, 'alice');
      assert.equal(r.body.subjects.find((s) => s.key === 'orderId')!.open.count, 0);
    });

    it('current facts are read again and compared with those at the pause', async () => {
      const a = await pause('ORD-9', 'cus_3', 640, { orderTotal: 640, refundedSoFar: 0, customerMessage: 'please' });
      const same = await f.call<{ refreshed: boolean; changed: string[]; facts: Record<string, unknown> }>(
        `/api/v1/approvals/${a.id}/facts`,
        'alice',
      );
      assert.equal(same.body.refreshed, true);
      assert.deepEqual(same.body.changed, [], 'the customer message is not a fact read again');
      refunded.set('ORD-9', 640);
      f.clock.advance(60_000);
      const later = await f.call<{ asOf: string; changed: string[]; facts: Record<string, unknown> }>(
        `/api/v1/approvals/${a.id}/facts`,
        'alice',
      );
      assert.deepEqual(later.body.changed, ['refundedSoFar']);
      assert.equal(later.body.facts.refundedSoFar, 640);
      assert.equal(later.body.asOf, new Date(f.clock.now()).toISOString());
    });

    it('a reviewer without the role reads neither', async () => {
      const a = await pause('ORD-10', 'cus_4', 640);
      assert.equal((await f.call(`/api/v1/approvals/${a.id}/related`, 'carol')).status, 403);
      assert.equal((await f.call(`/api/v1/approvals/${a.id}/facts`, 'carol')).status, 403);
      assert.equal((await f.call(`/api/v1/approvals/apr_nope/facts`, 'alice')).status, 404);
    });
  });
}
