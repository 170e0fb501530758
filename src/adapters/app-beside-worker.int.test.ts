import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, stepCountIs } from 'ai';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createWorker } from '../worker/index.ts';
import type { Store } from '../store/types.ts';
import { refundPolicy } from '../../test/support/adapter-policy.ts';
import { plan, supportModel, supportTools, type RefundLog } from '../../test/support/ai-sdk-model.ts';
import { createAiSdkAgent, type AiSdkAgent } from './ai-sdk/agent.ts';

const sam = { id: 'sam', roles: ['supervisor'] };
const LIMIT = 60_000;

// An app that runs an adapter agent and resumes its own threads, beside a service worker on the same
// database that does not have the app's agent registered.
for (const backend of allBackends()) {
  describe(`an app's adapter threads beside a worker without its agent, on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let app: AiSdkAgent;
    const log: RefundLog = { runs: [] };
    const clock = manualClock(Date.now());
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: refundPolicy, now: clock.now });
      const model = supportModel(plan);
      app = createAiSdkAgent({
        name: 'app-support',
        interlock: il,
        tools: supportTools(log),
        generate: (i) => generateText({ model, stopWhen: stepCountIs(5), ...i }),
      });
    });
    after(() => backend.destroy());

    const worker = () =>
      createWorker({ interlock: il, agents: [], sweepMs: 0, unknownAgentMs: LIMIT, onWarning: () => undefined });

    async function approved() {
      const t = `beside-${backend.name}-${++n}`;
      const r = await app.invoke(`refund ${t} 850`, { threadId: t });
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      return { t, req };
    }

    it('a thread the app finished is never failed by the worker; its resume job just ends', async () => {
      const { t } = await approved();
      assert.equal((await app.resume(t)).stopReason, 'end_turn');
      const w = worker();
      clock.advance(LIMIT + 1);
      await w.runOnce();
      assert.equal((await store.getThread(t))?.status, 'completed');
      assert.equal(w.stats.dead, 0);
      assert.equal(log.runs.filter((x) => x.args.orderId === t).length, 1);
    });

    it('past the limit the worker gives up the job only: the thread stays with the app, and the app resumes it later', async () => {
      const { t, req } = await approved();
      const w = worker();
      await w.runOnce();
      clock.advance(LIMIT + 1);
      await w.runOnce();
      assert.equal(w.stats.dead, 1);
      assert.equal((await store.getThread(t))?.status, 'interrupted', 'not failed');
      assert.equal((await store.getRequest(req.id))?.status, 'authorized', 'not cancelled');
      assert.equal((await app.resume(t)).stopReason, 'end_turn');
      assert.equal((await store.getRequest(req.id))?.status, 'executed');
      assert.equal(log.runs.filter((x) => x.args.orderId === t).length, 1);
    });

    it('a resume job given up for any reason fails no integration thread and cancels no approval', async () => {
      const { t, req } = await approved();
      const [job] = await store.claimJobs(['resume'], 'w9', clock.now(), clock.now() + 60_000, 50);
      assert.ok(job);
      await il.jobs.giveUpResume({ ...job, threadId: t }, 'w9', 'attempts exhausted');
      assert.equal((await store.getThread(t))?.status, 'interrupted', 'not failed');
      assert.equal((await store.getRequest(req.id))?.status, 'authorized', 'not cancelled');
      assert.equal((await app.resume(t)).stopReason, 'end_turn');
      assert.equal((await store.getRequest(req.id))?.status, 'executed');
    });
  });
}
