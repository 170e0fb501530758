import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { sseReader, type SseReader } from '../testing/http.ts';
import { createApp } from './app.ts';
import { createWebUi } from '../web/index.ts';
import { guard, startServerFixture, type ServerFixture, type Who } from '../../test/support/server-fixture.ts';

const METRICS_TOKEN = 'scraper-secret-0123456789';

for (const backend of allBackends()) {
  describe(`what each reviewer may see live, on the dashboard and at /metrics, on ${backend.name}`, () => {
    let f: ServerFixture;
    const open: SseReader[] = [];
    before(async () => {
      f = await startServerFixture(backend, {
        heartbeatMs: 200,
        maxStreamsPerReviewer: 3,
        metrics: { token: METRICS_TOKEN },
        ui: createWebUi(),
      });
    });
    after(async () => {
      for (const r of open) await r.close();
      await f.close();
    });

    async function connect(who: Who): Promise<SseReader> {
      const res = await fetch(`${f.url}/api/v1/events`, { headers: { authorization: `Bearer ${f.tokens[who]}` } });
      assert.equal(res.status, 200);
      const reader = sseReader(res);
      open.push(reader);
      await reader.nextEvent('ready', 2000);
      return reader;
    }

    it('a finance reviewer hears nothing of a supervisor request: no decision, no thread status, no execution', async () => {
      const carol = await connect('carol');
      const olga = await connect('olga');
      const req = await f.pauseRefund(800);
      await f.call(`/api/v1/approvals/${req.id}/decision`, 'bob', { body: { type: 'approve', ...guard(req) } });
      await f.interlock.executeOnce(
        { key: `vis-${req.id}`, tool: req.tool, args: req.args, threadId: req.threadId, requestId: req.id },
        async () => ({ ok: true }),
      );
      // The operator hears each of them.
      for (const e of ['approval.created', 'approval.decided', 'execution.finished'])
        assert.equal((JSON.parse((await olga.nextEvent(e, 3000)).data) as { threadId: string }).threadId, req.threadId);
      // Then a finance request: the first events carol gets are about it, never the supervisor thread's.
      const wire = await f.pauseWire();
      await f.call(`/api/v1/approvals/${wire.id}/decision`, 'carol', {
        body: { type: 'reject', message: 'no', ...guard(wire) },
      });
      const seen: string[] = [];
      for (;;) {
        const m = await carol.next(3000);
        if (m.kind !== 'event') continue;
        seen.push(m.data);
        if (m.event === 'approval.decided') break;
      }
      assert.ok(
        seen.every((d) => !d.includes(req.threadId) && !d.includes(req.id)),
        seen.join('\n'),
      );
      assert.ok(seen.some((d) => d.includes(wire.id)));
    });

    it('the dashboard shows a reviewer the tools of their roles only; operators see all', async () => {
      await f.pauseRefund(700);
      await f.pauseWire();
      const tools = async (who: Who) => {
        const r = await f.call<{ rollup: { tools: Array<{ tool: string }> } }>('/api/v1/dashboard', who);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.rollup.tools.map((t) => t.tool).sort();
      };
      assert.deepEqual(await tools('carol'), ['wire_funds']);
      assert.deepEqual(await tools('alice'), ['issue_refund']);
      assert.deepEqual(await tools('olga'), ['issue_refund', 'wire_funds']);
    });

    it('/metrics with a scraper token: refused without it or with a reviewer token, served with it or an operator token', async () => {
      const get = (token?: string) =>
        fetch(`${f.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      const none = await get();
      assert.equal(none.status, 401);
      await none.body?.cancel();
      const wrong = await get('not-the-scraper-token-at-all');
      assert.equal(wrong.status, 401);
      await wrong.body?.cancel();
      const reviewer = await get(f.tokens.alice);
      assert.equal(reviewer.status, 403);
      await reviewer.body?.cancel();
      const scraper = await get(METRICS_TOKEN);
      assert.equal(scraper.status, 200);
      assert.match(await scraper.text(), /interlock_/);
      const operator = await get(f.tokens.olga);
      assert.equal(operator.status, 200);
      await operator.body?.cancel();
    });

    it('a reviewer may hold a few live streams; one more is refused with 429 too_many_streams, and a closed one frees its place', async () => {
      const mine: SseReader[] = [];
      for (let i = 0; i < 3; i++) mine.push(await connect('bob'));
      const extra = await fetch(`${f.url}/api/v1/events`, { headers: { authorization: `Bearer ${f.tokens.bob}` } });
      assert.equal(extra.status, 429);
      assert.equal(((await extra.json()) as { error: { code: string } }).error.code, 'too_many_streams');
      await (await connect('alice')).close(); // another reviewer is not affected
      await mine[0]!.close();
      for (let i = 0; i < 50; i++) {
        const again = await fetch(`${f.url}/api/v1/events`, { headers: { authorization: `Bearer ${f.tokens.bob}` } });
        if (again.status === 200) {
          open.push(sseReader(again));
          return;
        }
        await again.body?.cancel();
        await new Promise((r) => setTimeout(r, 20)); // the server notices the closed stream on its next write
      }
      assert.fail('a closed stream never freed its place');
    });

    it('a too short metrics token is refused at start', () => {
      assert.throws(() => createApp({ interlock: f.interlock, metrics: { token: 'short' } }), /at least 16 characters/);
    });
  });
}
