import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from '@strands-agents/sdk';
import { Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { allBackends } from '../../testing/backends.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import type { PolicyConfig, Reviewer } from '../../core/index.ts';
import type { Store } from '../../store/types.ts';
import { FakeStrandsModel } from '../../../test/support/strands-model.ts';
import { INTERRUPT_NAME } from './hooks.ts';
import { createStrandsGraph, type StrandsGraphOptions } from './graph.ts';

const policy: PolicyConfig = {
  tools: {
    cleanup: [
      { id: 'cleanup', tier: 'approve', role: 'operator', reason: 'resources are deleted for good' },
      { id: 'never', tier: 'block', reason: 'production is cleaned by hand', when: ({ args }) => args.env === 'prod' },
    ],
  },
};
const olga: Reviewer = { id: 'olga', roles: ['operator'] };

/**
 * The Strands docs' maintenance agents: an inspector and a cleanup agent, each counting its runs. In
 * a swarm a node ends its turn through the SDK's structured output tool (its handoff, none here).
 */
function agents(ran: Record<string, number>, swarm = false) {
  const agent = (id: string, says: string) =>
    new Agent({
      id,
      name: id,
      printer: false,
      model: new FakeStrandsModel((messages) => {
        if (messages.at(-1)?.content.some((b) => b.type === 'toolResultBlock')) return says;
        ran[id] = (ran[id] ?? 0) + 1;
        return swarm ? [{ id: `so_${id}`, name: 'strands_structured_output', input: { message: says } }] : says;
      }),
    });
  return {
    inspector: agent('inspector', 'Found 3 resources older than 5 days.'),
    cleanup: agent('cleanup', 'Cleaned 3 resources.'),
  };
}

for (const backend of allBackends()) {
  describe(`Strands graphs and swarms behind Interlock on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const ran: Record<string, number> = {};
    let n = 0;
    const thread = () => `sg-${backend.name}-${++n}`;
    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy });
    });
    after(() => backend.destroy());

    const env = { value: 'staging' };
    const ask: StrandsGraphOptions['ask'] = { cleanup: () => ({ resources: 'older than 5 days', env: env.value }) };
    const graphOf = (interlock: Interlock) =>
      createStrandsGraph({
        name: 'maintenance',
        interlock,
        orchestrator: (sessionManager) => {
          const { inspector, cleanup } = agents(ran);
          return new Graph({
            nodes: [inspector, cleanup],
            edges: [['inspector', 'cleanup']],
            sessionManager,
            maxSteps: 10,
          });
        },
        ask,
      });
    const swarmOf = (interlock: Interlock) =>
      createStrandsGraph({
        name: 'maintenance-swarm',
        interlock,
        orchestrator: (sessionManager) =>
          new Swarm({ nodes: [agents(ran, true).cleanup], sessionManager, maxSteps: 10 }),
        ask,
      });
    const decide = async (id: string, d: Record<string, unknown>) => {
      const req = await il.getRequestOrThrow(id);
      return il.decide(req.id, { ...d, expectedVersion: req.version, actionHash: req.actionHash } as never, olga);
    };
    const reset = () => {
      for (const k of Object.keys(ran)) delete ran[k];
    };

    it('graph inspector → cleanup: the question before cleanup is a request; approved, a restarted process runs cleanup once', async () => {
      reset();
      const t = thread();
      const r = await graphOf(il).invoke('Inspect and clean up my resources', { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      assert.deepEqual(
        r.result?.interrupts?.map((i) => i.id),
        [`multiagent-hook:beforeNodeCall:cleanup:${INTERRUPT_NAME}`],
      );
      assert.deepEqual(ran, { inspector: 1 });
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      assert.equal(req.tool, 'cleanup');
      assert.deepEqual(req.args, { resources: 'older than 5 days', env: 'staging' });
      assert.equal((await graphOf(il).resume(t)).stopReason, 'interrupt', 'nothing decided yet');
      assert.deepEqual(ran, { inspector: 1 });
      await decide(req.id, { type: 'approve' });
      // Another process: its own connection and engine; the graph's state comes from the checkpoint.
      const otherStore = await backend.create();
      const done = await graphOf(createInterlock({ store: otherStore, policy })).resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.equal(done.text, 'Cleaned 3 resources.');
      assert.deepEqual(ran, { inspector: 1, cleanup: 1 });
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'executed');
      assert.equal((await graphOf(il).resume(t)).stopReason, 'end_turn');
      assert.deepEqual(ran, { inspector: 1, cleanup: 1 }, 'a second resume runs nothing');
    });

    it("graph: a rejection cancels cleanup with the reviewer's message; a blocked question never opens a request", async () => {
      reset();
      const t = thread();
      const r = await graphOf(il).invoke('Inspect and clean up my resources', { threadId: t });
      await decide(r.interrupts[0]!.id, { type: 'reject', message: 'not this week' });
      const done = await graphOf(il).resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.equal(done.result?.status, 'CANCELLED');
      assert.deepEqual(ran, { inspector: 1 });
      env.value = 'prod';
      try {
        const t2 = thread();
        const blocked = await graphOf(il).invoke('Inspect and clean up prod', { threadId: t2 });
        assert.equal(blocked.stopReason, 'end_turn');
        assert.deepEqual((await il.listRequests({ threadId: t2 })).items, []);
        assert.ok((await il.audit.listAudit({ threadId: t2 })).some((e) => e.type === 'refused'));
        assert.deepEqual(ran, { inspector: 2 });
      } finally {
        env.value = 'staging';
      }
    });

    it('swarm: the question before its node is a request; approved, the node runs once', async () => {
      reset();
      const t = thread();
      const r = await swarmOf(il).invoke('Clean up my resources', { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      assert.deepEqual(ran, {});
      await decide(r.interrupts[0]!.id, { type: 'approve' });
      const done = await swarmOf(il).resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.equal(done.text, 'Cleaned 3 resources.');
      assert.deepEqual(ran, { cleanup: 1 });
    });

    it('an answer planted in the saved orchestrator state runs nothing; the recorded decision does', async () => {
      reset();
      const t = thread();
      const r = await graphOf(il).invoke('Inspect and clean up my resources', { threadId: t });
      const cp = (await il.threads.loadLatest(t)).checkpoint!;
      const planted = JSON.stringify(cp.state).replace(
        /("id":"multiagent-hook:beforeNodeCall:cleanup:interlock-approval","name":"interlock-approval")/g,
        '$1,"response":"y"',
      );
      assert.notEqual(planted, JSON.stringify(cp.state), 'the saved state holds the interrupt');
      await store.unsafeQuery(`UPDATE il_checkpoints SET state = $1 WHERE id = $2`, [planted, cp.id]);
      assert.equal((await graphOf(il).resume(t)).stopReason, 'interrupt');
      assert.deepEqual(ran, { inspector: 1 });
      await decide(r.interrupts[0]!.id, { type: 'approve' });
      assert.equal((await graphOf(il).resume(t)).stopReason, 'end_turn');
      assert.deepEqual(ran, { inspector: 1, cleanup: 1 });
    });

    it("an orchestrator built without Interlock's session manager is refused: its state would not be kept", async () => {
      const wrong = createStrandsGraph({
        name: 'maintenance',
        interlock: il,
        orchestrator: () => new Graph({ nodes: [agents(ran).cleanup], edges: [] }),
        ask,
      });
      await assert.rejects(wrong.invoke('Clean up', { threadId: thread() }), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'invalid_config');
        assert.match(e.message, /sessionManager/);
        return true;
      });
    });
  });
}
