import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { fetchJson } from '../testing/http.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportTree, treePolicy } from '../testing/multi-agent-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createApp, createReviewer, serve, type RunningServer } from '../server/index.ts';
import { createThreadsAdapter } from './threads.ts';

type Body = { threadId?: string; status?: string; error?: { code: string; message: string } };

// A support agent with a refunds sub-agent, started and aborted over the API.
for (const backend of allBackends()) {
  describe(`a tree of agents over the threads API on ${backend.name}`, () => {
    let il: Interlock;
    let server: RunningServer;
    let threads: ReturnType<typeof createThreadsAdapter>;
    let token = '';

    before(async () => {
      const store = await backend.create();
      il = createInterlock({ store, policy: treePolicy });
      const { support, refunds } = supportTree(il, new FakePayments());
      threads = createThreadsAdapter(
        il,
        new Map([
          [support.name, support],
          [refunds.name, refunds],
        ]),
        () => undefined,
      );
      server = await serve({ app: createApp({ interlock: il, threads }), port: 0 });
      token = (await createReviewer(store, { name: 'olga', roles: ['operator'] })).token;
    });
    after(async () => {
      await server.close();
      await threads.idle();
      await backend.destroy();
    });

    const post = (path: string, body?: unknown) =>
      fetchJson<Body>(`${server.url}/api/v1${path}`, { token, body: body ?? {} });

    it("a sub-agent's thread cannot be aborted alone: the answer names the root to abort", async () => {
      const root = `tree-${backend.name}`;
      assert.equal(
        (await post('/threads', { agent: 'support', input: 'Refund $850 for ORD-999', threadId: root })).status,
        202,
      );
      await threads.idle();
      const child = (await il.listRequests({ status: 'pending' })).items.find((r) => r.threadId.startsWith(`${root}.`));
      assert.ok(child, 'the sub-agent paused on its own thread');
      const r = await post(`/threads/${encodeURIComponent(child.threadId)}/abort`);
      assert.equal(r.status, 409);
      assert.equal(r.body.error?.code, 'child_thread');
      assert.match(r.body.error?.message ?? '', new RegExp(`Abort ${root}`));
      assert.equal((await il.threads.getThread(child.threadId))?.status, 'interrupted', 'nothing changed');
    });

    it("a thread id of a sub-agent's form (with a dot) is refused at start", async () => {
      const r = await post('/threads', { agent: 'support', input: 'hello', threadId: `tree-${backend.name}.call_1` });
      assert.equal(r.status, 400);
      assert.equal(r.body.error?.code, 'invalid_input');
    });
  });
}
