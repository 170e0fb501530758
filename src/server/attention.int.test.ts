/**
 * "Needs attention" over HTTP: approved actions that failed when they ran — a reviewer sees those
 * they approved or decided on, an operator all — newest failure first, with the masked error, when,
 * and who approved; paged, counted, and documented in /openapi.json. On both databases.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalRequest } from '../core/index.ts';
import { allBackends } from '../testing/backends.ts';
import { guard, startServerFixture, type ServerFixture, type Who } from '../../test/support/server-fixture.ts';

type Item = {
  request: { id: string; tool: string; status: string; args: Record<string, unknown> };
  error: string;
  failedAt: string;
  approvers: Array<{ id: string; name: string }>;
};
type Page = { items: Item[]; nextCursor: string | null; count: number };

for (const backend of allBackends()) {
  describe(`needs attention over HTTP on ${backend.name}`, () => {
    let f: ServerFixture;
    before(async () => (f = await startServerFixture(backend)));
    after(() => f.close());

    /** A refund approved by `who`, then run: failing with `error`, or succeeding when it is undefined. */
    async function approvedAndRun(who: Who, amount: number, error?: string): Promise<ApprovalRequest> {
      const req = await f.pauseRefund(amount);
      const d = await f.call(`/api/v1/approvals/${req.id}/decision`, who, {
        method: 'POST',
        body: { type: 'approve', ...guard(req) },
      });
      assert.equal(d.status, 200);
      f.clock.advance(1000);
      const cur = await f.interlock.getRequestOrThrow(req.id);
      await f.interlock.executeOnce(
        {
          key: `${cur.id}:${cur.actionHash}`,
          tool: cur.tool,
          args: cur.args,
          requestId: cur.id,
          threadId: cur.threadId,
        },
        async () => {
          if (error !== undefined) throw new Error(error);
          return 'ok';
        },
      );
      return req;
    }

    it('lists what each viewer should follow up: their own failed approvals, or all for an operator', async () => {
      const a1 = await approvedAndRun('alice', 610, 'bank refused: call +1 415 555 0100');
      await approvedAndRun('alice', 620); // ran: nothing to follow up
      const b1 = await approvedAndRun('bob', 630, 'shop offline');
      const a2 = await approvedAndRun('alice', 640, 'order already refunded');
      const rejected = await f.pauseRefund(650);
      await f.call(`/api/v1/approvals/${rejected.id}/decision`, 'alice', {
        method: 'POST',
        body: { type: 'reject', message: 'no', ...guard(rejected) },
      });

      const alice = await f.call<Page>('/api/v1/attention', 'alice');
      assert.equal(alice.status, 200);
      assert.deepEqual(
        alice.body.items.map((i) => i.request.id),
        [a2.id, a1.id],
        'newest failure first',
      );
      assert.equal(alice.body.count, 2);
      assert.equal(alice.body.nextCursor, null);
      const [top, second] = alice.body.items;
      assert.equal(top!.error, 'order already refunded');
      assert.equal(top!.request.status, 'failed');
      assert.equal(top!.request.tool, 'issue_refund');
      assert.deepEqual(top!.approvers, [{ id: f.ids.alice, name: 'alice' }]);
      assert.equal(top!.failedAt, new Date((await f.interlock.getRequestOrThrow(a2.id)).updatedAt).toISOString());
      assert.equal(second!.error, 'bank refused: call [phone ***00]', 'masked like evidence');

      const bob = await f.call<Page>('/api/v1/attention', 'bob');
      assert.deepEqual(
        bob.body.items.map((i) => i.request.id),
        [b1.id],
      );
      assert.equal((await f.call<Page>('/api/v1/attention', 'carol')).body.count, 0);
      const olga = await f.call<Page>('/api/v1/attention', 'olga');
      assert.deepEqual(
        olga.body.items.map((i) => i.request.id),
        [a2.id, b1.id, a1.id],
      );
      assert.equal(olga.body.count, 3);

      assert.deepEqual((await f.call('/api/v1/attention/count', 'alice')).body, { count: 2 });
      assert.deepEqual((await f.call('/api/v1/attention/count', 'olga')).body, { count: 3 });
    });

    it('pages with limit and cursor; refuses a bad cursor, an unknown parameter and no credentials', async () => {
      const first = await f.call<Page>('/api/v1/attention?limit=2', 'olga');
      assert.equal(first.body.items.length, 2);
      assert.ok(first.body.nextCursor);
      const next = await f.call<Page>(
        `/api/v1/attention?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
        'olga',
      );
      const all = await f.call<Page>('/api/v1/attention', 'olga');
      assert.deepEqual(
        [...first.body.items, ...next.body.items].map((i) => i.request.id),
        all.body.items.map((i) => i.request.id),
      );
      const bad = await f.call<{ error: { code: string; message: string } }>('/api/v1/attention?cursor=nope', 'olga');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'invalid_input');
      assert.match(bad.body.error.message, /pass nextCursor from the previous page unchanged/);
      assert.equal((await f.call('/api/v1/attention?status=failed', 'olga')).status, 400);
      assert.equal((await f.call('/api/v1/attention?limit=0', 'olga')).status, 400);
      assert.equal((await f.call('/api/v1/attention', null)).status, 401);
      assert.equal((await f.call('/api/v1/attention/count', null)).status, 401);
    });

    it('is documented in /openapi.json', async () => {
      const r = await f.call<{ paths: Record<string, { get?: { responses: Record<string, unknown> } }> }>(
        '/openapi.json',
        null,
      );
      assert.ok(r.body.paths['/api/v1/attention']?.get?.responses['200']);
      assert.ok(r.body.paths['/api/v1/attention/count']?.get?.responses['200']);
    });
  });
}
