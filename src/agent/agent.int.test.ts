import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportPolicy, supportScript, supportTools } from '../testing/support-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createAgent, type AgentOptions } from './index.ts';
import type { Store } from '../store/types.ts';
import type { Reviewer } from '../core/index.ts';

const sup: Reviewer = { id: 'sam', roles: ['supervisor'] };
const ret: Reviewer = { id: 'rita', roles: ['retention_lead'] };
const logi: Reviewer = { id: 'leo', roles: ['logistics'] };

for (const backend of allBackends()) {
  describe(`agent on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();
    let n = 0;
    const tid = () => `thr-${backend.name}-${++n}`;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: supportPolicy, now: clock.now });
    });
    after(() => backend.destroy());

    function make(extra: Partial<AgentOptions> = {}) {
      const pay = new FakePayments();
      const model = scriptedModel(supportScript);
      const agent = createAgent({
        name: 'support',
        version: '1.0.0',
        model,
        system: 'You help customers.',
        tools: supportTools(pay),
        interlock: il,
        ...extra,
      });
      return { pay, model, agent };
    }

    it('runs auto tools and ends the turn', async () => {
      const { agent, model } = make();
      const r = await agent.invoke('please look up my order', { threadId: tid() });
      assert.equal(r.stopReason, 'end_turn');
      assert.equal(r.status, 'completed');
      assert.match(r.text, /ORD-999/);
      assert.equal(model.calls, 2);
      assert.deepEqual(
        r.messages.map((m) => m.role),
        ['user', 'assistant', 'tool', 'assistant'],
      );
    });

    it('pauses a $850 refund durably and resumes in a fresh agent without repeating the model call', async () => {
      const { agent, model, pay } = make();
      const threadId = tid();
      const r = await agent.invoke('I need a full refund of $850 for ORD-999', { threadId });
      assert.equal(r.stopReason, 'interrupt');
      assert.equal(r.interrupts.length, 1);
      const i = r.interrupts[0]!;
      assert.equal(i.kind, 'approval');
      assert.equal(i.name, 'issue_refund');
      assert.equal(i.role, 'supervisor');
      assert.match(i.message, /supervisor/);
      assert.equal(model.calls, 1);
      assert.equal(pay.effects.length, 0);
      // Durable: a checkpoint with the messages and the pending call, a notification job.
      const cp = await store.getLatestCheckpoint(threadId);
      assert.equal(cp?.messageCount, 2);
      const st = cp?.state as { batch: { calls: Array<{ status: string; toolName: string }> } };
      assert.deepEqual(
        st.batch.calls.map((c) => [c.toolName, c.status]),
        [['issue_refund', 'waiting']],
      );
      assert.equal((await store.listJobs({ requestId: i.id, kind: 'notify' })).length, 1);

      const req = await il.getRequestOrThrow(i.id);
      await il.decide(i.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sup);
      // "Another process": a new agent object over the store, with its own model.
      const fresh = make();
      const done = await fresh.agent.resume(threadId);
      assert.equal(done.stopReason, 'end_turn');
      assert.equal(fresh.model.calls, 1, 'only the reply after the tool result; the first model call is not repeated');
      assert.equal(fresh.pay.count('refund'), 1);
      assert.match(done.text, /refund_1/);
      // A second resume changes nothing.
      const again = await fresh.agent.resume(threadId);
      assert.equal(again.stopReason, 'end_turn');
      assert.equal(fresh.pay.count('refund'), 1);
      assert.equal((await il.getRequestOrThrow(i.id)).status, 'executed');
    });

    it('parallel calls: auto calls run, each gated call gets its own interrupt, and only unfinished calls run on resume', async () => {
      const { agent, model, pay } = make();
      const threadId = tid();
      const r = await agent.invoke('refund $900 and cancel my plan and look up my order', { threadId });
      assert.equal(r.stopReason, 'interrupt');
      assert.deepEqual(r.interrupts.map((x) => x.name).sort(), ['cancel_subscription', 'issue_refund']);
      const refundI = r.interrupts.find((x) => x.name === 'issue_refund')!;
      const cancelI = r.interrupts.find((x) => x.name === 'cancel_subscription')!;
      // The lookup ran once already; its result is kept.
      const st1 = (await store.getLatestCheckpoint(threadId))?.state as {
        batch: { calls: Array<{ toolName: string; status: string }> };
      };
      assert.equal(st1.batch.calls.find((c) => c.toolName === 'look_up_order')?.status, 'done');

      const rq = await il.getRequestOrThrow(refundI.id);
      await il.decide(refundI.id, { type: 'approve', expectedVersion: rq.version, actionHash: rq.actionHash }, sup);
      const mid = await agent.resume(threadId);
      assert.equal(mid.stopReason, 'interrupt', 'still waiting for the cancellation');
      assert.deepEqual(
        mid.interrupts.map((x) => x.id),
        [cancelI.id],
      );
      assert.equal(pay.count('refund'), 1);
      assert.equal(model.calls, 1, 'no model call while a call of the batch has no result');

      const cq = await il.getRequestOrThrow(cancelI.id);
      await il.decide(
        cancelI.id,
        {
          type: 'reject',
          expectedVersion: cq.version,
          actionHash: cq.actionHash,
          message: 'customer is in a contract',
        },
        ret,
      );
      const end = await agent.resume(threadId);
      assert.equal(end.stopReason, 'end_turn');
      assert.equal(model.calls, 2);
      assert.equal(pay.count('refund'), 1);
      assert.equal(pay.count('cancel'), 0);
      // The model saw one result per call, in one tool message.
      const toolMsgs = end.messages.filter((m) => m.role === 'tool');
      assert.equal(toolMsgs.length, 1);
      assert.equal(toolMsgs[0]!.content.length, 3);
    });

    it('reject: the model gets the reviewer message and offers an alternative', async () => {
      const { agent, pay } = make();
      const threadId = tid();
      const r = await agent.invoke('refund $850 please', { threadId });
      const id = r.interrupts[0]!.id;
      const q = await il.getRequestOrThrow(id);
      await il.decide(
        id,
        { type: 'reject', expectedVersion: q.version, actionHash: q.actionHash, message: 'outside the return window' },
        sup,
      );
      const end = await agent.resume(threadId);
      assert.match(end.text, /store credit/);
      assert.match(end.text, /outside the return window/);
      assert.equal(pay.effects.length, 0);
    });

    it('edit: the edited amount runs once', async () => {
      const { agent, pay } = make();
      const threadId = tid();
      const r = await agent.invoke('refund $850 cust e1', { threadId });
      const id = r.interrupts[0]!.id;
      const q = await il.getRequestOrThrow(id);
      await il.decide(
        id,
        { type: 'edit', expectedVersion: q.version, actionHash: q.actionHash, args: { ...q.args, amount: 600 } },
        sup,
      );
      await agent.resume(threadId);
      await agent.resume(threadId);
      assert.equal(pay.count('refund'), 1);
      assert.equal(pay.effects[0]!.args.amount, 600);
    });

    it('respond: the reviewer text is the tool result and the tool does not run', async () => {
      const { agent, pay } = make();
      const threadId = tid();
      const r = await agent.invoke('refund $850', { threadId });
      const id = r.interrupts[0]!.id;
      const q = await il.getRequestOrThrow(id);
      await il.decide(
        id,
        {
          type: 'respond',
          expectedVersion: q.version,
          actionHash: q.actionHash,
          message: 'Refund was already issued on Monday (RF-123).',
        },
        sup,
      );
      const end = await agent.resume(threadId);
      assert.match(end.text, /RF-123/);
      assert.equal(pay.effects.length, 0);
    });

    it('in-process responses have the same semantics and are recorded as decisions', async () => {
      const { agent, pay } = make();
      const threadId = tid();
      const r = await agent.invoke('refund $850', { threadId });
      const id = r.interrupts[0]!.id;
      const end = await agent.invoke(null, { threadId, responses: { [id]: { type: 'approve' } }, reviewer: sup });
      assert.equal(end.stopReason, 'end_turn');
      assert.equal(pay.count('refund'), 1);
      const story = await il.explain(id);
      assert.deepEqual(
        story.decisions.map((d) => d.by),
        ['reviewer:sam'],
      );
      await assert.rejects(agent.invoke(null, { threadId, responses: { [id]: { type: 'approve' } } }), /reviewer/);
    });

    it('an in-process answer settles its resume job when the run stops past it; a run that cannot go on leaves it for a worker', async () => {
      const { agent } = make();
      const threadId = tid();
      const r = await agent.invoke('refund $850', { threadId });
      const id = r.interrupts[0]!.id;
      await agent.invoke(null, { threadId, responses: { [id]: { type: 'approve' } }, reviewer: sup });
      const jobs = (await store.listJobs({ threadId, kind: 'resume' })).filter((j) => j.requestId === id);
      assert.deepEqual(
        jobs.map((j) => j.status),
        ['done'],
        'the job the decision queued is moot: the run finished the turn',
      );

      // The run throws before a durable stop (the model fails): the job stays, so a worker resumes the thread.
      const failing = createAgent({
        name: 'support',
        version: '1.0.0',
        model: scriptedModel(supportScript),
        system: 'You help customers.',
        tools: supportTools(new FakePayments()),
        interlock: il,
      });
      const t2 = tid();
      const p = await failing.invoke('refund $850', { threadId: t2 });
      const broken = createAgent({
        name: 'support',
        version: '1.0.0',
        system: 'You help customers.',
        tools: supportTools(new FakePayments()),
        interlock: il,
        model: scriptedModel(() => {
          throw new Error('model down');
        }),
      });
      await assert.rejects(
        broken.invoke(null, { threadId: t2, responses: { [p.interrupts[0]!.id]: { type: 'approve' } }, reviewer: sup }),
        /model down/,
      );
      const left = (await store.listJobs({ threadId: t2, kind: 'resume' })).filter(
        (j) => j.requestId === p.interrupts[0]!.id,
      );
      assert.deepEqual(
        left.map((j) => j.status),
        ['ready'],
      );
    });

    it('blocks tools by policy and tells the model', async () => {
      const { agent } = make();
      const end = await agent.invoke('delete my account', { threadId: tid() });
      assert.equal(end.stopReason, 'end_turn');
      assert.match(end.text, /Blocked by policy/);
    });

    it("the model-facing texts are the agent's to set", async () => {
      const { agent } = make({ texts: { blocked: (reason) => `Not allowed here (${reason}).` } });
      const end = await agent.invoke('delete my account', { threadId: tid() });
      assert.match(end.text, /Not allowed here \(/);
      assert.doesNotMatch(end.text, /Blocked by policy/);
    });

    it('approve and trust: a later call of the same rule in the thread runs without asking', async () => {
      const { agent, pay } = make();
      const threadId = tid();
      const r = await agent.invoke('cancel my plan', { threadId });
      const id = r.interrupts[0]!.id;
      await agent.invoke(null, { threadId, responses: { [id]: { type: 'approve', trust: true } }, reviewer: ret });
      const second = await agent.invoke('cancel my other plan too', { threadId });
      assert.equal(second.stopReason, 'end_turn');
      assert.equal(pay.count('cancel'), 2);
      const audit = await store.listAudit({ threadId });
      const auto = audit.filter((e) => e.type === 'auto_executed' && e.payload.tool === 'cancel_subscription');
      assert.equal(auto.length, 1);
      assert.ok(auto[0]!.payload.trustedBy, 'the audit shows why it ran without asking');
      assert.equal(audit.filter((e) => e.type === 'trusted').length, 1, 'one grant, one trusted event');
    });

    it('approve and trust answered with a hook question of the same batch: the call the hook held runs on the grant', async () => {
      // The hook holds the first cancellation; the second waits for a retention lead. One answer approves
      // the hook's question and approves the second with trust: the first, gated after, runs on the grant.
      const pay = new FakePayments();
      const threadId = tid();
      const agent = createAgent({
        name: 'support',
        version: '1.0.0',
        model: scriptedModel((ctx) =>
          ctx.lastToolResults.length
            ? { text: 'Both cancelled.' }
            : {
                toolCalls: [
                  { name: 'cancel_subscription', args: { subscriptionId: 'SUB-1' } },
                  { name: 'cancel_subscription', args: { subscriptionId: 'SUB-2' } },
                ],
              },
        ),
        system: 's',
        tools: supportTools(pay),
        interlock: il,
        hooks: {
          beforeToolCall: (call) =>
            call.args.subscriptionId === 'SUB-1'
              ? { interrupt: { name: 'check_contract', reason: 'check the contract first', role: 'retention_lead' } }
              : undefined,
        },
      });
      const r = await agent.invoke('cancel both', { threadId });
      assert.deepEqual(
        r.interrupts.map((i) => i.kind),
        ['hook', 'approval'],
      );
      const [hook, approval] = r.interrupts;
      const end = await agent.invoke(null, {
        threadId,
        responses: { [hook!.id]: { type: 'approve' }, [approval!.id]: { type: 'approve', trust: true } },
        reviewer: ret,
      });
      assert.equal(end.stopReason, 'end_turn');
      assert.equal(pay.count('cancel'), 2);
      const auto = (await store.listAudit({ threadId })).filter((e) => e.type === 'auto_executed');
      assert.equal(auto.length, 1, 'the call the hook held ran on the grant, without a new request');
      assert.ok(auto[0]!.payload.trustedBy);
    });

    it('a tool can interrupt several times, one at a time', async () => {
      const { agent, pay } = make();
      const threadId = tid();
      const r = await agent.invoke('change my address', { threadId });
      assert.equal(r.interrupts[0]?.kind, 'tool');
      assert.equal(r.interrupts[0]?.name, 'confirm_address');
      assert.equal(r.interrupts[0]?.role, 'logistics');
      const r2 = await agent.invoke(null, {
        threadId,
        responses: { [r.interrupts[0].id]: { type: 'approve' } },
        reviewer: logi,
      });
      assert.equal(r2.interrupts[0]?.name, 'confirm_fee');
      assert.equal(pay.effects.length, 0);
      const end = await agent.invoke(null, {
        threadId,
        responses: { [r2.interrupts[0].id]: { type: 'reject', message: 'waive it' } },
        reviewer: logi,
      });
      assert.equal(end.stopReason, 'end_turn');
      assert.equal(pay.count('address_change'), 1);
      assert.equal(pay.effects[0]!.args.fee, 0);
    });

    it('a timeout rejects by default and the model is told', async () => {
      const { agent, pay } = make();
      const threadId = tid();
      await agent.invoke('refund $850', { threadId });
      clock.advance(31 * 60_000);
      const expired = await il.expireDue();
      assert.ok(expired.some((e) => e.threadId === threadId && e.status === 'expired'));
      const end = await agent.resume(threadId);
      assert.match(end.text, /deadline/);
      assert.equal(pay.effects.length, 0);
    });

    it('abort stops a paused thread now and cancels its requests; max_iterations bounds the loop', async () => {
      const { agent } = make();
      const threadId = tid();
      const r = await agent.invoke('refund $850', { threadId });
      await agent.abort(threadId);
      assert.equal((await il.getRequestOrThrow(r.interrupts[0]!.id)).status, 'cancelled');
      const after = await agent.resume(threadId);
      assert.equal(after.stopReason, 'aborted');
      const looping = createAgent({
        name: 'support',
        version: '1.0.0',
        model: scriptedModel(() => ({ toolCalls: [{ name: 'look_up_order', args: { orderId: 'X' } }] })),
        system: 's',
        tools: supportTools(new FakePayments()),
        interlock: il,
        maxIterations: 3,
      });
      const m = await looping.invoke('loop forever', { threadId: tid() });
      assert.equal(m.stopReason, 'max_iterations');
    });

    it('an abort asked while a tool runs stops the run at the next boundary, before the model is asked again', async () => {
      // The run learns of an abort at the boundary after the call: from the thread row it reads there,
      // or from the row the execution's outcome read as it committed; either way after the tool ran.
      for (const [text, reviewer] of [
        ['refund $45', undefined],
        ['refund $850', sup],
      ] as const) {
        const pay = new FakePayments();
        const threadId = tid();
        const model = scriptedModel(supportScript);
        const tools = supportTools(pay).map((t) =>
          t.name !== 'issue_refund'
            ? t
            : {
                ...t,
                execute: async (args: never, ctx: never) => {
                  await il.threads.abort(threadId, 'operator:olga');
                  return t.execute(args, ctx);
                },
              },
        );
        const agent = createAgent({ name: 'support', version: '1.0.0', model, system: 's', tools, interlock: il });
        let r = await agent.invoke(text, { threadId });
        if (reviewer) {
          assert.equal(r.stopReason, 'interrupt');
          r = await agent.invoke(null, {
            threadId,
            responses: { [r.interrupts[0]!.id]: { type: 'approve' } },
            reviewer,
          });
        }
        assert.equal(r.stopReason, 'aborted', text);
        assert.equal((await store.getThread(threadId))?.status, 'aborted');
        assert.equal(pay.effects.length, 1, 'the refund ran once');
        const calls = model.calls;
        assert.equal((await agent.resume(threadId)).stopReason, 'aborted');
        assert.equal(model.calls, calls, 'the model is not asked again after the abort');
        const last = r.messages[r.messages.length - 1];
        assert.equal(last?.role, 'tool', 'the run stopped right after the tool result');
      }
    });

    it('stores each message once: storage grows linearly with the conversation', async () => {
      const { agent } = make();
      const threadId = tid();
      const sizes: number[] = [];
      for (let t = 0; t < 30; t++) {
        await agent.invoke(`please look up my order, turn ${t} ${'x'.repeat(400)}`, { threadId });
        sizes.push(await store.threadStorageBytes(threadId));
      }
      const firstTen = sizes[9]! - sizes[0]!;
      const lastTen = sizes[29]! - sizes[19]!;
      assert.ok(
        lastTen < firstTen * 1.3,
        `growth per turn stays flat (first ten turns ${firstTen} B, last ten ${lastTen} B)`,
      );
    });

    it('an answer names an interrupt of its own thread: another thread’s is refused and changes nothing', async () => {
      const { agent, pay } = make();
      const [a, b] = [tid(), tid()];
      const ra = await agent.invoke('I need a full refund of $850 for ORD-999', { threadId: a });
      const rb = await agent.invoke('I need a full refund of $850 for ORD-999', { threadId: b });
      const idB = rb.interrupts[0]!.id;
      await assert.rejects(
        agent.invoke(null, { threadId: a, responses: { [idB]: { type: 'approve' } }, reviewer: sup }),
        (e: Error & { code?: string }) => e.code === 'interrupt_not_found',
      );
      assert.equal((await il.getRequest(idB))?.status, 'pending');
      assert.equal((await il.threads.getThread(a))?.leaseOwner, null, 'the refused answer took no lease');
      assert.equal(pay.calls, 0);
      // The thread's own interrupt is answered as usual.
      const end = await agent.invoke(null, {
        threadId: a,
        responses: { [ra.interrupts[0]!.id]: { type: 'approve' } },
        reviewer: sup,
      });
      assert.equal(end.stopReason, 'end_turn');
      assert.equal(pay.calls, 1);
    });

    it('refuses a checkpoint from an incompatible agent version, accepts a compatible one', async () => {
      const { agent } = make();
      const threadId = tid();
      await agent.invoke('refund $850', { threadId });
      const v2 = make({ version: '2.0.0' });
      await assert.rejects(
        v2.agent.resume(threadId),
        (e: Error & { code?: string }) => e.code === 'incompatible_agent_version',
      );
      const v11 = make({ version: '1.1.0' });
      const r = await v11.agent.resume(threadId);
      assert.equal(r.stopReason, 'interrupt');
    });
  });
}
