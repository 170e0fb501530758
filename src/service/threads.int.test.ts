import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { fetchJson } from '../testing/http.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportPolicy, supportScript, supportTools } from '../testing/support-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createAgent, type Agent } from '../agent/index.ts';
import { createWorker, type Worker } from '../worker/index.ts';
import { createApp, createReviewer, serve, type RunningServer } from '../server/index.ts';
import type { Store } from '../store/types.ts';
import { createThreadsAdapter } from './threads.ts';

type ErrorBody = { error: { code: string; message: string } };

for (const backend of allBackends()) {
  describe(`starting threads over HTTP on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let agent: Agent;
    let server: RunningServer;
    let worker: Worker;
    let threads: ReturnType<typeof createThreadsAdapter>;
    const pay = new FakePayments();
    const logs: string[] = [];
    const tokens = { operator: '', supervisor: '' };

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: supportPolicy });
      agent = createAgent({
        name: 'support',
        version: '1',
        model: scriptedModel(supportScript),
        system: 's',
        tools: supportTools(pay),
        interlock: il,
      });
      threads = createThreadsAdapter(il, new Map([[agent.name, agent]]), (m) => logs.push(m));
      server = await serve({ app: createApp({ interlock: il, threads }), port: 0 });
      worker = createWorker({ interlock: il, agents: [agent], sweepMs: 0 });
      tokens.operator = (await createReviewer(store, { name: 'olga', roles: ['operator'] })).token;
      tokens.supervisor = (await createReviewer(store, { name: 'sam', roles: ['supervisor'] })).token;
    });
    after(async () => {
      await server.close();
      await threads.idle();
      await backend.destroy();
    });

    const start = (threadId: string, input: string) =>
      fetchJson<{ threadId: string; status: string } & ErrorBody>(`${server.url}/api/v1/threads`, {
        token: tokens.operator,
        body: { agent: 'support', input, threadId },
      });

    it('a second start with the id of a paused thread is refused (409 thread_exists), changes nothing, and the thread still completes after approval', async () => {
      const id = `dup-${backend.name}`;
      assert.equal((await start(id, 'refund $850 please')).status, 202);
      await threads.idle();
      assert.equal((await store.getThread(id))?.status, 'interrupted');
      const [req] = (await store.listRequests({ threadId: id })).items;
      assert.ok(req);
      const auditBefore = await store.listAudit({ threadId: id });
      const jobsBefore = await store.listJobs({ threadId: id });

      const again = await start(id, 'refund $850 please');
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'thread_exists');
      assert.match(again.body.error.message, /new thread/);
      await threads.idle();
      const after1 = await store.getThread(id);
      assert.equal(after1?.status, 'interrupted', 'the paused thread is untouched');
      assert.equal(after1?.messageCount, (await store.listMessages(id)).length);
      const same = await store.getRequest(req.id);
      assert.equal(same?.status, 'pending');
      assert.equal(same?.version, req.version);
      assert.deepEqual(await store.listAudit({ threadId: id }), auditBefore, 'no audit event');
      assert.deepEqual(await store.listJobs({ threadId: id }), jobsBefore, 'no job');
      assert.deepEqual(logs, [], 'nothing failed in the background');

      const decided = await fetchJson<{ outcome: string }>(`${server.url}/api/v1/approvals/${req.id}/decision`, {
        token: tokens.supervisor,
        body: { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
      });
      assert.equal(decided.status, 200);
      assert.equal(decided.body.outcome, 'authorized');
      await worker.runOnce();
      assert.equal((await store.getThread(id))?.status, 'completed');
      assert.equal((await store.getRequest(req.id))?.status, 'executed');
      assert.equal(pay.effects.filter((e) => e.args.orderId === 'ORD-999' && e.args.amount === 850).length, 1);
    });

    it('the library call refuses an existing id the same way', async () => {
      await assert.rejects(threads.start('support', 'refund $850 please', `dup-${backend.name}`), {
        code: 'thread_exists',
      });
    });
  });
}
