import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { sseReader, type SseReader } from '../testing/http.ts';
import { createApp } from './app.ts';
import { serve } from './serve.ts';
import { guard, startServerFixture, type ServerFixture, type Who } from '../../test/support/server-fixture.ts';

const data = (m: { data: string }) => JSON.parse(m.data) as Record<string, unknown>;

for (const backend of allBackends()) {
  describe(`live events on ${backend.name}`, () => {
    let f: ServerFixture;
    const open: SseReader[] = [];
    before(async () => {
      f = await startServerFixture(backend, { heartbeatMs: 200 });
    });
    after(async () => {
      for (const r of open) await r.close();
      assert.deepEqual(f.logged, []);
      await f.close();
    });

    async function connect(who: Who): Promise<SseReader> {
      const res = await fetch(`${f.url}/api/v1/events`, { headers: { authorization: `Bearer ${f.tokens[who]}` } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      const reader = sseReader(res);
      open.push(reader);
      await reader.nextEvent('ready', 2000);
      return reader;
    }

    it('refuses a stream without a valid token', async () => {
      const res = await fetch(`${f.url}/api/v1/events`);
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
      const viaQuery = await fetch(`${f.url}/api/v1/events?token=${f.tokens.alice}`);
      assert.equal(viaQuery.status, 400, 'tokens in the URL are refused');
      await viaQuery.body?.cancel();
    });

    it('forwards approval.created and approval.decided, each to the roles that may see it', async () => {
      const alice = await connect('alice');
      const carol = await connect('carol');
      const req = await f.pauseRefund(800);
      const created = await alice.nextEvent('approval.created', 3000);
      assert.deepEqual(JSON.parse(created.data), {
        type: 'approval.created',
        requestId: req.id,
        threadId: req.threadId,
        tool: 'issue_refund',
        role: 'supervisor',
      });
      assert.ok(created.id);

      const res = await f.call(`/api/v1/approvals/${req.id}/decision`, 'bob', {
        body: { type: 'approve', ...guard(req) },
      });
      assert.equal(res.status, 200);
      const decided = await alice.nextEvent('approval.decided', 3000);
      assert.deepEqual(JSON.parse(decided.data), {
        type: 'approval.decided',
        requestId: req.id,
        threadId: req.threadId,
        decision: 'approve',
        status: 'authorized',
      });

      // Carol (finance) hears nothing of the supervisor request: not its creation, not its decision
      // (the same rule as reading it). The first events she gets are her own role's.
      const wire = await f.pauseWire();
      const carolCreated = await carol.nextEvent('approval.created', 3000);
      assert.equal(data(carolCreated).requestId, wire.id, "the first approval.created carol sees is her own role's");
      await f.call(`/api/v1/approvals/${wire.id}/decision`, 'carol', {
        body: { type: 'reject', message: 'no', ...guard(wire) },
      });
      const carolDecided = await carol.nextEvent('approval.decided', 3000);
      assert.equal(
        data(carolDecided).requestId,
        wire.id,
        "the first approval.decided carol sees is her own request's, not the supervisor one",
      );
    });

    it('sends approval.expired and a heartbeat comment while idle', async () => {
      const alice = await connect('alice');
      const req = await f.pauseRefund(800);
      await alice.nextEvent('approval.created', 3000);
      f.clock.advance(31 * 60_000);
      await f.interlock.expireDue();
      const expired = await alice.nextEvent('approval.expired', 3000);
      assert.equal(data(expired).requestId, req.id);
      const beat = await alice.next(2000);
      assert.deepEqual(beat, { kind: 'comment', text: 'heartbeat' });
    });

    it('a client that goes away is unsubscribed from the engine', async () => {
      let listeners = 0;
      const counted = {
        ...f.interlock,
        on(l: Parameters<typeof f.interlock.on>[0]) {
          listeners++;
          const off = f.interlock.on(l);
          return () => {
            listeners--;
            return off();
          };
        },
      };
      const app = createApp({ interlock: counted, logger: { error: () => undefined } });
      const server = await serve({ app, port: 0 });
      try {
        const base = listeners; // the metrics listener
        const res = await fetch(`${server.url}/api/v1/events`, {
          headers: { authorization: `Bearer ${f.tokens.alice}` },
        });
        const reader = sseReader(res);
        await reader.nextEvent('ready', 2000);
        assert.equal(listeners, base + 1);
        await reader.close();
        for (let i = 0; i < 100 && listeners > base; i++) await new Promise((r) => setTimeout(r, 20));
        assert.equal(listeners, base, 'the stream let go of its listener');
      } finally {
        await server.close();
      }
      assert.equal(listeners, 0, 'closing the app let go of the metrics listener');
    });

    it('ends a stream when events of other processes may have been missed, so the client reconnects and reloads', async () => {
      // What the hub delivers when its LISTEN connection comes back after a loss (event-bus.ts).
      const listeners = new Set<Parameters<typeof f.interlock.on>[0]>();
      const tapped = {
        ...f.interlock,
        on(l: Parameters<typeof f.interlock.on>[0]) {
          listeners.add(l);
          const off = f.interlock.on(l);
          return () => {
            listeners.delete(l);
            off();
          };
        },
      };
      const app = createApp({ interlock: tapped, logger: { error: () => undefined } });
      const server = await serve({ app, port: 0 });
      try {
        const res = await fetch(`${server.url}/api/v1/events`, {
          headers: { authorization: `Bearer ${f.tokens.alice}` },
        });
        const reader = sseReader(res);
        await reader.nextEvent('ready', 2000);
        for (const l of listeners) l({ type: 'events.missed', remote: true });
        assert.equal(await reader.ended(3000), true, 'the stream ended');
      } finally {
        await server.close();
      }
    });

    it('closing the server ends open streams', async () => {
      const extra = await startServerFixture(backend);
      const res = await fetch(`${extra.url}/api/v1/events`, {
        headers: { authorization: `Bearer ${extra.tokens.olga}` },
      });
      const reader = sseReader(res);
      await reader.nextEvent('ready', 2000);
      const closed = extra.server.close();
      assert.equal(await reader.ended(3000), true, 'the stream ended');
      await closed; // the store is the shared backend's; it is destroyed with it
    });
  });
}
