import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { guard, startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';

type ErrorBody = { error: { code: string; message: string; details?: { issues?: Array<{ path: string }> } } };
type Item = {
  id: string;
  tool: string;
  status: string;
  args: Record<string, unknown>;
  allowedDecisions: string[];
  resolution: { by: string } | null;
};
type Page = { items: Item[]; nextCursor: string | null; names: Record<string, string> };

for (const backend of allBackends()) {
  describe(`queue search, sort, count and eligibility on ${backend.name}`, () => {
    let f: ServerFixture;
    const ids: Record<string, string> = {};
    before(async () => {
      f = await startServerFixture(backend);
      // Distinct amounts (one huge, needing two approvals), and a wire for finance without a refund's orderId.
      for (const amount of [600, 900, 750, 2500, 1200]) {
        const r = await f.pauseRefund(amount, { customerId: amount === 750 ? 'Żaneta_50%' : 'c1' });
        ids[String(amount)] = r.id;
      }
      ids.wire = (await f.pauseWire()).id;
    });
    after(async () => {
      assert.deepEqual(f.logged, [], 'no unexpected server errors');
      await f.close();
    });

    const list = (who: 'alice' | 'bob' | 'olga' | 'carol', query: string) =>
      f.call<Page & ErrorBody>(`/api/v1/approvals?${query}`, who);
    const count = async (who: 'alice' | 'olga', query: string) =>
      (await f.call<{ count: number }>(`/api/v1/approvals/count?${query}`, who)).body.count;
    const idsOf = (p: Page) => p.items.map((i) => i.id);

    it('q searches tool, reason and argument text, case-insensitively, wildcards taken literally', async () => {
      const order = (await f.interlock.getRequestOrThrow(ids['900']!)).args.orderId as string;
      assert.deepEqual(idsOf((await list('alice', `status=pending&q=${order.toLowerCase()}`)).body), [ids['900']]);
      assert.equal((await list('alice', 'status=pending&q=OVER%20%242%2C000')).body.items.length, 1, 'the reason');
      assert.deepEqual(idsOf((await list('olga', 'status=pending&q=WIRE_')).body), [ids.wire], 'the tool, for olga');
      assert.deepEqual(idsOf((await list('alice', 'q=wire')).body), [], 'not a role of alice');
      assert.deepEqual(idsOf((await list('alice', 'q=_50%25')).body), [ids['750']], '% and _ match themselves');
      assert.deepEqual(idsOf((await list('alice', 'q=c1_5')).body), [], '_ is no wildcard');
      assert.equal(await count('alice', 'status=pending&q=refund'), 5);
    });

    it('arg.<name> matches one argument value, as text, case-insensitively', async () => {
      const order = (await f.interlock.getRequestOrThrow(ids['600']!)).args.orderId as string;
      assert.deepEqual(idsOf((await list('alice', `arg.orderId=${order.toLowerCase()}`)).body), [ids['600']]);
      assert.deepEqual(idsOf((await list('alice', 'arg.amount=1200')).body), [ids['1200']], 'a number, as text');
      assert.deepEqual(idsOf((await list('alice', 'arg.amount=1200&arg.customerId=nobody')).body), []);
      assert.equal(await count('alice', 'arg.customerId=C1'), 4);
    });

    it('order=amount: largest amount first, requests without one last, paged by cursor', async () => {
      const all = (await list('olga', 'status=pending&order=amount')).body;
      assert.deepEqual(
        all.items.map((i) => i.args.amount),
        [10_000, 2500, 1200, 900, 750, 600],
      );
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Page = (
          await list('olga', `status=pending&order=amount&limit=4${cursor ? `&cursor=${cursor}` : ''}`)
        ).body;
        paged.push(...idsOf(page));
        cursor = page.nextCursor;
      } while (cursor);
      assert.deepEqual(paged, idsOf(all));
    });

    it('the count counts what the listing lists, for each reviewer', async () => {
      assert.equal(await count('alice', 'status=pending'), 5);
      assert.equal(await count('olga', 'status=pending'), 6);
      assert.equal(await count('olga', 'status=pending&tier=escalate'), 1);
      assert.equal(await count('alice', 'status=pending&role=finance'), 0, 'a role alice lacks counts nothing');
    });

    it('allowedDecisions say what this reviewer may decide; ids fetch requests whatever their status', async () => {
      const huge = await f.interlock.getRequestOrThrow(ids['2500']!);
      assert.equal(
        (
          await f.call(`/api/v1/approvals/${huge.id}/decision`, 'alice', {
            body: { type: 'approve', ...guard(huge) },
          })
        ).status,
        200,
      );
      const own = await f.pauseRefund(800, { proposer: f.ids.bob });
      const byId = async (who: 'alice' | 'bob' | 'olga', id: string) =>
        (await list(who, `ids=${id}`)).body.items[0]!.allowedDecisions;
      assert.deepEqual(await byId('alice', huge.id), ['edit', 'reject', 'respond'], 'her approval is counted');
      assert.deepEqual(await byId('bob', huge.id), ['approve', 'edit', 'reject', 'respond']);
      assert.deepEqual(await byId('bob', own.id), [], 'he proposed it');
      assert.deepEqual(await byId('olga', own.id), [], 'not her role');
      const small = await f.interlock.getRequestOrThrow(ids['600']!);
      await f.call(`/api/v1/approvals/${small.id}/decision`, 'bob', { body: { type: 'reject', ...guard(small) } });
      const both = (await list('alice', `ids=${small.id},${huge.id}&order=expiry`)).body;
      const decided = both.items.find((i) => i.id === small.id)!;
      assert.equal(decided.status, 'rejected');
      assert.equal(both.names[decided.resolution!.by], 'bob', 'who decided, by name');
      assert.deepEqual(decided.allowedDecisions, []);
      assert.deepEqual(idsOf((await list('alice', `ids=${small.id}&status=pending`)).body), []);
    });

    it('bad values are refused with invalid_input naming the parameter', async () => {
      const newest = (await list('alice', 'limit=1')).body.nextCursor!;
      const bad: Array<[string, string]> = [
        ['order=bogus', 'query.order'],
        ['tier=bogus', 'query.tier'],
        ['q=%20%20', 'query.q'],
        [`q=${'x'.repeat(201)}`, 'query.q'],
        ['arg.bad-name=1', 'query.arg.bad-name'],
        ['arg.orderId=', 'query.arg.orderId'],
        ['arg.a=1&arg.b=1&arg.c=1&arg.d=1&arg.e=1&arg.f=1', 'query.arg'],
        [`ids=${Array.from({ length: 101 }, (_, i) => `apr_${i}`).join(',')}`, 'query.ids'],
        ['ids=a,a', 'query.ids'],
        [`order=amount&cursor=${newest}`, 'cursor'],
        ['order=amount&cursor=bm9wZQ', 'cursor'],
      ];
      for (const [query, path] of bad) {
        for (const route of ['/api/v1/approvals', '/api/v1/approvals/count']) {
          if (route.endsWith('count') && /order=|cursor=/.test(query)) continue;
          const r = await f.call<ErrorBody>(`${route}?${query}`, 'alice');
          assert.equal(r.status, 400, `${route}?${query}`);
          assert.equal(r.body.error.code, 'invalid_input');
          assert.ok(
            r.body.error.details?.issues?.some((i) => i.path === path),
            `${query}: ${JSON.stringify(r.body.error.details)}`,
          );
        }
      }
    });
  });
}
