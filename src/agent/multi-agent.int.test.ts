import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { FakeFiles, cleanupGraph, handoffPair, supportTree, treePolicy } from '../testing/multi-agent-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createWorker } from '../worker/index.ts';
import type { Store } from '../store/types.ts';
import type { Reviewer } from '../core/index.ts';
import { InterlockError } from '../core/index.ts';
import { createGraph } from './graph.ts';
import { createMetrics } from '../server/metrics.ts';

const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`sub-agents and handoffs on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();
    let n = 0;
    const tid = () => `tree-${backend.name}-${++n}`;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: treePolicy, now: clock.now });
    });
    after(() => backend.destroy());

    async function decide(id: string, d: { type: 'approve' } | { type: 'reject'; message: string }) {
      const req = await il.getRequestOrThrow(id);
      return il.decide(id, { ...d, expectedVersion: req.version, actionHash: req.actionHash }, sam);
    }

    it('a pause inside a sub-agent pauses the tree; the worker resumes the root, the child continues, the parent completes; nothing repeats', async () => {
      const pay = new FakePayments();
      const t = supportTree(il, pay);
      const threadId = tid();
      const r = await t.support.invoke('Please refund $850 for my order', { threadId });
      assert.equal(r.stopReason, 'interrupt');
      assert.equal(r.status, 'interrupted');
      const [i] = r.interrupts;
      assert.equal(i?.name, 'issue_refund');
      assert.deepEqual(i?.path, ['support', 'refunds']);
      assert.deepEqual(i?.args, { orderId: 'ORD-999', customerId: 'test-001', amount: 850 });
      // The request sits on the child thread, records its path, and the root shows the pause.
      const req = await il.getRequestOrThrow(i.id);
      assert.notEqual(req.threadId, threadId);
      assert.equal(req.proposer, 'agent:refunds');
      assert.deepEqual(req.context.agentPath, ['support', 'refunds']);
      const child = await store.getThread(req.threadId);
      assert.equal(child?.status, 'interrupted');
      assert.equal(child?.metadata.rootThreadId, threadId);
      assert.equal((await store.getThread(threadId))?.status, 'interrupted');
      const audit = await store.listAudit({ requestId: req.id });
      assert.deepEqual(audit.find((e) => e.type === 'interrupted')?.payload.path, ['support', 'refunds']);
      assert.equal(t.supportModel.calls, 1);
      assert.equal(t.refundsModel.calls, 1);
      assert.equal(pay.count('refund'), 0);

      await decide(i.id, { type: 'approve' });
      // The worker knows only the root's agent: the child's thread is resumed through its root.
      const w = createWorker({ interlock: il, agents: [t.support], sweepMs: 0 });
      assert.equal(await w.runOnce(), 1);
      assert.equal(pay.count('refund'), 1);
      assert.equal((await store.getThread(threadId))?.status, 'completed');
      assert.equal((await store.getThread(req.threadId))?.status, 'completed');
      const messages = await t.support.messages(threadId);
      assert.match(JSON.stringify(messages.at(-1)), /The refunds team says: Refund done/);
      // Each model was asked once before the pause and once after: no finished call repeated at either level.
      assert.equal(t.supportModel.calls, 2);
      assert.equal(t.refundsModel.calls, 2);
      // Storage stays linear: each thread holds its own messages once.
      assert.equal((await store.listMessages(threadId)).length, 4);
      assert.equal((await store.listMessages(req.threadId)).length, 4);
      // A repeat resume does nothing more.
      await t.support.resume(threadId);
      assert.equal(pay.count('refund'), 1);
      assert.equal(t.supportModel.calls, 2);
    });

    it("a rejected sub-agent action reaches the parent as the sub-agent's answer", async () => {
      const pay = new FakePayments();
      const t = supportTree(il, pay);
      const threadId = tid();
      const r = await t.support.invoke('refund $900', { threadId });
      await decide(r.interrupts[0]!.id, { type: 'reject', message: 'order already refunded' });
      const done = await t.support.resume(threadId);
      assert.equal(done.stopReason, 'end_turn');
      assert.match(done.text, /The refunds team says: I could not refund it: .*order already refunded/);
      assert.equal(pay.count('refund'), 0);
    });

    it('answers a sub-agent interrupt in-process through the root (responses), and three concurrent resumes pay once', async () => {
      const pay = new FakePayments();
      const t = supportTree(il, pay);
      const threadId = tid();
      const r = await t.support.invoke('refund $700', { threadId });
      const id = r.interrupts[0]!.id;
      await decide(id, { type: 'approve' });
      const all = await Promise.all([1, 2, 3].map(() => t.support.resume(threadId)));
      assert.ok(all.some((x) => x.stopReason === 'end_turn'));
      assert.equal(pay.count('refund'), 1);
      const other = tid();
      const r2 = await t.support.invoke('refund $750', { threadId: other });
      const done = await t.support.invoke(null, {
        threadId: other,
        responses: { [r2.interrupts[0]!.id]: { type: 'approve' } },
        reviewer: sam,
      });
      assert.equal(done.stopReason, 'end_turn');
      assert.equal(pay.count('refund'), 2);
    });

    it('refuses to run a child thread on its own, and aborting the root cancels the child’s requests', async () => {
      const pay = new FakePayments();
      const t = supportTree(il, pay);
      const threadId = tid();
      const r = await t.support.invoke('refund $800', { threadId });
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      await assert.rejects(t.refunds.resume(req.threadId), (e: unknown) => {
        assert.ok(e instanceof InterlockError);
        assert.equal(e.code, 'child_thread');
        assert.match(e.message, new RegExp(`resume ${threadId}`));
        return true;
      });
      await t.support.abort(threadId, 'operator:olga');
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'cancelled');
      assert.equal((await store.getThread(req.threadId))?.status, 'aborted');
      assert.equal(pay.count('refund'), 0);
    });

    it('metrics count interrupts per agent, by path inside a tree (roll-up and Prometheus)', async () => {
      const metrics = createMetrics(il);
      try {
        const t = supportTree(il, new FakePayments());
        clock.advance(60_000); // a window with only this test's requests
        const since = clock.now();
        await t.support.invoke('refund $820', { threadId: tid() });
        await t.support.invoke('refund $830', { threadId: tid() });
        const roll = await il.rollup(since, clock.now() + 1);
        assert.deepEqual(
          roll.agents.find((a) => a.agent === 'support/refunds'),
          { agent: 'support/refunds', requests: 2, pending: 2 },
        );
        const text = await metrics.render();
        assert.match(text, /^interlock_agent_interrupts_total\{agent="support\/refunds"\} 2$/m);
      } finally {
        metrics.dispose();
      }
    });

    it('a gated handoff: approved, the receiving agent continues the same conversation with its own instructions and tools', async () => {
      const pay = new FakePayments();
      const h = handoffPair(il, pay);
      const threadId = tid();
      const r = await h.triage.invoke('My invoice is wrong', { threadId });
      assert.equal(r.stopReason, 'interrupt');
      assert.equal(r.interrupts[0]?.name, 'transfer_to_billing');
      assert.equal(h.billingModel.calls, 0);
      await decide(r.interrupts[0].id, { type: 'approve' });
      const done = await h.triage.resume(threadId);
      assert.equal(done.stopReason, 'end_turn');
      assert.match(done.text, /Billing here: refunded .*"amount":40/);
      assert.equal(h.triageModel.calls, 1);
      assert.equal(h.billingModel.calls, 2);
      assert.equal(pay.count('refund'), 1);
      // One conversation: the billing turns follow the triage turns on the same thread.
      assert.deepEqual(
        done.messages.map((m) => m.role),
        ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'],
      );
      const refund = (await store.listRequests({ threadId })).items;
      assert.equal(refund.length, 1, 'the $40 refund ran on auto under billing');
      const delegated = (await store.listAudit({ threadId })).filter((e) => e.type === 'delegated');
      assert.deepEqual(
        delegated.map((e) => [e.payload.kind, e.payload.to]),
        [['handoff', 'billing']],
      );
      // Billing spoke with its own instructions.
      assert.deepEqual(h.billingModel.prompts[0]?.[0], { role: 'system', content: 'You are billing.' });
    });

    it('a rejected handoff leaves the conversation with the agent that asked', async () => {
      const pay = new FakePayments();
      const h = handoffPair(il, pay);
      const threadId = tid();
      const r = await h.triage.invoke('My invoice is wrong', { threadId });
      await decide(r.interrupts[0]!.id, { type: 'reject', message: 'billing is closed today' });
      const done = await h.triage.resume(threadId);
      assert.match(done.text, /Triage again: .*billing is closed today/);
      assert.equal(h.billingModel.calls, 0);
    });
  });

  describe(`agent graphs on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();
    let n = 0;
    const tid = () => `graph-${backend.name}-${++n}`;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: treePolicy, now: clock.now });
    });
    after(() => backend.destroy());

    async function answer(id: string, d: Record<string, unknown>) {
      const req = await il.getRequestOrThrow(id);
      return il.decide(
        id,
        { ...d, expectedVersion: req.version, actionHash: req.actionHash } as Parameters<Interlock['decide']>[1],
        sam,
      );
    }

    it('inspector → cleanup: beforeNode pauses before cleanup; approved, cleanup runs once and the inspector is not asked again', async () => {
      const fs = new FakeFiles();
      const g = cleanupGraph(il, fs);
      const threadId = tid();
      const r = await g.graph.invoke('check the disk', { threadId });
      assert.equal(r.stopReason, 'interrupt');
      const [i] = r.interrupts;
      assert.equal(i?.name, 'confirm_cleanup');
      assert.deepEqual(i?.path, ['maintenance', 'cleanup']);
      assert.deepEqual(i?.args, { input: 'a.tmp,b.tmp' });
      assert.equal(r.outputs.inspector, 'a.tmp,b.tmp', 'the finished node’s result is kept');
      assert.equal((await store.getThread(threadId))?.status, 'interrupted');
      const req = await il.getRequestOrThrow(i.id);
      assert.equal(req.tool, 'node:maintenance/cleanup');
      assert.equal(req.proposer, 'graph:maintenance');
      assert.deepEqual(req.context.agentPath, ['maintenance', 'cleanup']);
      assert.equal(g.cleanupRuns(), 0);
      await answer(i.id, { type: 'approve' });
      const w = createWorker({ interlock: il, agents: [g.graph], sweepMs: 0 });
      assert.equal(await w.runOnce(), 1);
      assert.deepEqual(fs.deleted, ['a.tmp', 'b.tmp']);
      assert.equal(g.cleanupRuns(), 1);
      assert.equal(g.inspectorModel.calls, 1);
      assert.equal((await store.getThread(threadId))?.status, 'completed');
      const again = await g.graph.resume(threadId);
      assert.equal(again.stopReason, 'end_turn');
      assert.equal(g.cleanupRuns(), 1);
    });

    it('a second input runs the graph again: the agent node runs anew, not the first run’s child', async () => {
      const fs = new FakeFiles();
      const g = cleanupGraph(il, fs);
      const threadId = tid();
      const first = await g.graph.invoke('check the disk', { threadId });
      await answer(first.interrupts[0]!.id, { type: 'respond', message: 'skip' });
      assert.equal((await g.graph.resume(threadId)).stopReason, 'end_turn');
      fs.files.add('c.tmp');
      const second = await g.graph.invoke('check again', { threadId });
      assert.deepEqual(second.interrupts[0]?.args, { input: 'a.tmp,b.tmp,c.tmp' });
      assert.equal(g.inspectorModel.calls, 2);
    });

    const verbs: Array<[string, Record<string, unknown>, (fs: FakeFiles, out: unknown, runs: number) => void]> = [
      [
        'reject cancels the node with a message the next node sees',
        { type: 'reject', message: 'not during business hours' },
        (fs, report, runs) => {
          assert.equal(runs, 0);
          assert.deepEqual(fs.deleted, []);
          assert.deepEqual(report, { saw: { cancelled: true, message: 'not during business hours', by: 'sam' } });
        },
      ],
      [
        "edit replaces the node's input",
        { type: 'edit', args: { input: 'a.tmp' } },
        (fs, report, runs) => {
          assert.equal(runs, 1);
          assert.deepEqual(fs.deleted, ['a.tmp']);
          assert.deepEqual(report, { saw: { deleted: ['a.tmp'] } });
        },
      ],
      [
        "respond supplies the node's output without running it",
        { type: 'respond', message: 'already cleaned by hand' },
        (fs, report, runs) => {
          assert.equal(runs, 0);
          assert.deepEqual(fs.deleted, []);
          assert.deepEqual(report, { saw: 'already cleaned by hand' });
        },
      ],
    ];
    for (const [title, decision, check] of verbs)
      it(`node-level verbs: ${title}`, async () => {
        const fs = new FakeFiles();
        const g = cleanupGraph(il, fs);
        const threadId = tid();
        const r = await g.graph.invoke('check the disk', { threadId });
        await answer(r.interrupts[0]!.id, decision);
        const done = await g.graph.resume(threadId);
        assert.equal(done.stopReason, 'end_turn');
        check(fs, done.outputs.report, g.cleanupRuns());
      });

    it('an unanswered node question gets its timeout default (reject): the node is cancelled, the next node sees why', async () => {
      const fs = new FakeFiles();
      const g = cleanupGraph(il, fs);
      const threadId = tid();
      const r = await g.graph.invoke('check the disk', { threadId });
      clock.advance(25 * 60 * 60_000); // past the question's 24 h default
      const expired = await il.expireDue();
      assert.ok(expired.some((x) => x.id === r.interrupts[0]!.id));
      const done = await g.graph.resume(threadId);
      assert.equal(g.cleanupRuns(), 0);
      assert.deepEqual(done.outputs.report, {
        saw: { cancelled: true, message: 'No reviewer decided before the deadline.', by: 'system:timeout' },
      });
    });

    it('aborting a graph paused inside an agent node stops the node’s thread and cancels its request', async () => {
      const pay = new FakePayments();
      const t = supportTree(il, pay);
      const graph = createGraph({
        name: 'refund-abort',
        version: '1.0.0',
        interlock: il,
        nodes: { refund: { agent: t.refunds } },
        start: 'refund',
      });
      const threadId = tid();
      const r = await graph.invoke('Refund $900 for ORD-999', { threadId });
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      await graph.abort(threadId, 'operator:olga');
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'cancelled');
      assert.equal((await store.getThread(req.threadId))?.status, 'aborted');
      assert.equal((await graph.resume(threadId)).stopReason, 'aborted');
      assert.equal(pay.count('refund'), 0);
    });

    it('an edit that does not fit the node’s input schema is refused and changes nothing', async () => {
      const fs = new FakeFiles();
      const g = cleanupGraph(il, fs);
      const threadId = tid();
      const r = await g.graph.invoke('check the disk', { threadId });
      const id = r.interrupts[0]!.id;
      await assert.rejects(
        answer(id, { type: 'edit', args: { input: 42 } }),
        /edited arguments of "node:maintenance\/cleanup" are invalid/,
      );
      assert.equal((await il.getRequestOrThrow(id)).status, 'pending');
      assert.equal((await g.graph.resume(threadId)).stopReason, 'interrupt');
      assert.equal(g.cleanupRuns(), 0);
    });

    it('two branches run concurrently: the one beforeNode interrupts waits, the other completes and is not run again', async () => {
      const ran: string[] = [];
      const graph = createGraph({
        name: 'fanout',
        version: '1.0.0',
        interlock: il,
        nodes: {
          a: { run: (input) => (ran.push('a'), `a(${String(input)})`) },
          b: { run: (input) => (ran.push('b'), `b(${String(input)})`) },
          join: { run: (input) => input },
        },
        start: ['a', 'b'],
        edges: [
          { from: 'a', to: 'join' },
          { from: 'b', to: 'join' },
        ],
        hooks: {
          beforeNode: [
            ({ node }, { interrupt }) => {
              if (node === 'b') interrupt({ name: 'confirm_b', reason: 'b changes production' });
            },
          ],
        },
      });
      const threadId = tid();
      const r = await graph.invoke('x', { threadId });
      assert.equal(r.stopReason, 'interrupt');
      assert.deepEqual(ran, ['a']);
      assert.equal(r.outputs.a, 'a(x)', 'a finished: its output is there while b waits');
      assert.equal(r.outputs.b, undefined);
      assert.deepEqual(
        r.interrupts.map((i) => i.name),
        ['confirm_b'],
      );
      await answer(r.interrupts[0]!.id, { type: 'approve' });
      const done = await graph.resume(threadId);
      assert.deepEqual(ran, ['a', 'b'], 'a kept its result; only b ran');
      assert.deepEqual(done.outputs.join, { a: 'a(x)', b: 'b(x)' });
    });

    it('every hook runs and may interrupt; one hook raises two interrupts in turn', async () => {
      let deployed = 0;
      const seenBy: string[] = [];
      const graph = createGraph({
        name: 'release',
        version: '1.0.0',
        interlock: il,
        nodes: { deploy: { run: () => ++deployed } },
        start: 'deploy',
        hooks: {
          beforeNode: [
            (_e, { interrupt }) => {
              seenBy.push('first');
              interrupt({ name: 'security_review', reason: 'security signs off' });
              interrupt({ name: 'change_window', reason: 'inside the change window?' });
            },
            (_e, { interrupt }) => {
              seenBy.push('second');
              interrupt({ name: 'on_call', reason: 'on-call is ready', role: 'supervisor' });
            },
          ],
        },
      });
      const threadId = tid();
      const names: string[] = [];
      let r = await graph.invoke('ship it', { threadId });
      while (r.stopReason === 'interrupt') {
        assert.equal(r.interrupts.length, 1, 'one question at a time');
        names.push(r.interrupts[0]!.name);
        await answer(r.interrupts[0]!.id, { type: 'approve' });
        r = await graph.resume(threadId);
      }
      assert.deepEqual(names, ['security_review', 'change_window', 'on_call']);
      assert.equal(deployed, 1);
      assert.ok(seenBy.includes('second'));
    });

    it('a question from inside a node pauses the graph; the answer comes back when the node runs again', async () => {
      const graph = createGraph({
        name: 'asker',
        version: '1.0.0',
        interlock: il,
        nodes: {
          ask: {
            run: (_input, ctx) => {
              const a = ctx.interrupt({ name: 'which_region', reason: 'Which region should we use?' });
              return a.type === 'respond' ? `region: ${a.message}` : 'no region';
            },
          },
        },
        start: 'ask',
      });
      const threadId = tid();
      const r = await graph.invoke('go', { threadId });
      assert.equal(r.interrupts[0]?.name, 'which_region');
      const done = await graph.invoke(null as never, {
        threadId,
        responses: { [r.interrupts[0].id]: { type: 'respond', message: 'eu-west' } },
        reviewer: sam,
      });
      assert.equal(done.text, 'region: eu-west');
    });

    it("an agent node's gated tool call pauses the graph; approved, it runs once", async () => {
      const pay = new FakePayments();
      const t = supportTree(il, pay);
      const graph = createGraph({
        name: 'refund-flow',
        version: '1.0.0',
        interlock: il,
        nodes: { refund: { agent: t.refunds }, notify: { run: (input) => `told customer: ${String(input)}` } },
        start: 'refund',
        edges: [{ from: 'refund', to: 'notify' }],
      });
      const threadId = tid();
      const r = await graph.invoke('Refund $900 for ORD-999', { threadId });
      assert.equal(r.interrupts[0]?.name, 'issue_refund');
      assert.deepEqual(r.interrupts[0]?.path, ['refund-flow', 'refund', 'refunds']);
      await answer(r.interrupts[0].id, { type: 'approve' });
      const done = await graph.resume(threadId);
      assert.equal(done.stopReason, 'end_turn', JSON.stringify(done));
      assert.equal(pay.count('refund'), 1);
      assert.equal(t.refundsModel.calls, 2);
      assert.match(done.text, /^told customer: Refund done/);
      await graph.resume(threadId);
      assert.equal(pay.count('refund'), 1);
    });
  });
}
