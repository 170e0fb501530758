import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { RunnerResult } from '../../engine/index.ts';
import { REVIEWERS } from './world.ts';
import type { SuiteContext } from './context.ts';

/** The four verbs and an edit that raises the tier. */
export function verbScenarios(c: SuiteContext): void {
  const { thread, effectsOf, amounts, pending, decide, onlyRequest } = c;

  it('auto: a small refund runs once, keyed, with no request', async () => {
    const t = thread();
    const r = await c.agent.invoke(`refund ${t} 120`, { threadId: t });
    assert.equal(r.stopReason, 'end_turn');
    assert.deepEqual(amounts(t), [120]);
    assert.ok(effectsOf(t)[0]!.key, 'the tool got an idempotency key');
    assert.deepEqual(await pending(t), []);
  });

  it('approve: the approved call runs once, after the decision, with its arguments', async () => {
    const t = thread();
    const r = await c.agent.invoke(`refund ${t} 850`, { threadId: t });
    const req = await onlyRequest(r);
    assert.deepEqual(req.args, { orderId: t, amount: 850 });
    assert.deepEqual(amounts(t), [], 'nothing runs before the decision');
    await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
    const done = await c.agent.resume(t);
    assert.equal(done.stopReason, 'end_turn');
    assert.deepEqual(amounts(t), [850]);
    await c.agent.resume(t);
    assert.deepEqual(amounts(t), [850], 'a second resume runs nothing again');
    assert.equal((await c.il.getRequestOrThrow(req.id)).status, 'executed');
  });

  it('reject: nothing runs and the thread goes on', async () => {
    const t = thread();
    const req = await onlyRequest(await c.agent.invoke(`refund ${t} 850`, { threadId: t }));
    await decide(req, { type: 'reject', message: 'order never paid' }, REVIEWERS.supervisor);
    const done = await c.agent.resume(t);
    assert.equal(done.stopReason, 'end_turn');
    assert.deepEqual(amounts(t), []);
  });

  it('respond: nothing runs; the answer stands in for the result', async () => {
    const t = thread();
    const req = await onlyRequest(await c.agent.invoke(`refund ${t} 850`, { threadId: t }));
    await decide(req, { type: 'respond', message: 'Offer store credit.' }, REVIEWERS.supervisor);
    assert.equal((await c.agent.resume(t)).stopReason, 'end_turn');
    assert.deepEqual(amounts(t), []);
  });

  it('edit: the edited arguments run once, not the proposed ones', async () => {
    const t = thread();
    const req = await onlyRequest(await c.agent.invoke(`refund ${t} 850`, { threadId: t }));
    await decide(req, { type: 'edit', args: { orderId: t, amount: 700 } }, REVIEWERS.supervisor);
    assert.equal((await c.agent.resume(t)).stopReason, 'end_turn');
    assert.deepEqual(amounts(t), [700]);
  });

  it('an auto call beside a gated one runs now; the gated one after its approval, each once', async () => {
    const t = thread();
    const r = await c.agent.invoke(`refund ${t} 100; refund ${t} 850`, { threadId: t });
    const req = await onlyRequest(r);
    assert.deepEqual(amounts(t), [100]);
    await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
    await c.agent.resume(t);
    assert.deepEqual(amounts(t).sort(), [100, 850]);
  });

  it('an edit that raises the tier: the new request decides, and the edited call runs once', async () => {
    const t = thread();
    const req = await onlyRequest(await c.agent.invoke(`refund ${t} 850`, { threadId: t }));
    const d = await decide(req, { type: 'edit', args: { orderId: t, amount: 1500 } }, REVIEWERS.supervisor);
    assert.equal(d.outcome, 'superseded');
    const waiting = await c.agent.resume(t);
    assert.equal(waiting.stopReason, 'interrupt', 'the manager has not decided yet');
    assert.deepEqual(amounts(t), []);
    const raised = await onlyRequest(waiting);
    assert.equal(raised.role, 'manager');
    await decide(raised, { type: 'approve' }, REVIEWERS.manager);
    assert.equal((await c.agent.resume(t)).stopReason, 'end_turn');
    assert.deepEqual(amounts(t), [1500]);
    assert.equal((await c.il.getRequestOrThrow(raised.id)).status, 'executed');
  });
}

/** Block, a quorum, two calls under one id, parallel calls settled independently, auto beside gated. */
export function gateScenarios(c: SuiteContext): void {
  const { thread, tid, effectsOf, amounts, pending, decide, onlyRequest } = c;

  it('block: nothing runs, no request opens, the refusal is audited', async () => {
    const t = thread();
    const r = await c.agent.invoke(`refund ${t} 900000`, { threadId: t });
    assert.equal(r.stopReason, 'end_turn');
    assert.deepEqual(amounts(t), []);
    assert.deepEqual(await pending(t), []);
    assert.ok((await c.il.audit.listAudit({ threadId: tid(t) })).some((e) => e.type === 'refused'));
  });

  it('escalate with a quorum: one approval runs nothing, the second runs it once', async () => {
    const t = thread();
    const req = await onlyRequest(await c.agent.invoke(`refund ${t} 30000`, { threadId: t }));
    assert.equal(req.approvalsRequired, 2);
    await decide(req, { type: 'approve' }, REVIEWERS.director);
    assert.equal((await c.agent.resume(t)).stopReason, 'interrupt');
    assert.deepEqual(amounts(t), []);
    await decide(req, { type: 'approve' }, REVIEWERS.director2);
    assert.equal((await c.agent.resume(t)).stopReason, 'end_turn');
    assert.deepEqual(amounts(t), [30000]);
  });

  for (const first of [900_000, 30_000]) {
    it(`two calls under one id in one step ($${first}, then $600): one approval never runs the first`, async () => {
      const t = thread();
      let r: RunnerResult | undefined;
      try {
        r = await c.agent.invoke(`refund ${t} ${first} @dup; refund ${t} 600 @dup`, { threadId: t });
      } catch (e) {
        // A framework that refuses repeated ids itself: loud, and nothing ran.
        assert.ok(e instanceof Error);
      }
      // Whatever opened, one supervisor approves all of it (the bypass needed just that).
      for (const req of await pending(t))
        await decide(req, { type: 'approve' }, REVIEWERS.supervisor).catch(() => undefined);
      if (r) await c.agent.resume(t);
      assert.ok(!amounts(t).includes(first), `the $${first} call ran on one approval`);
      // Anything that did run ran as its own call, with its own request or verdict.
      for (const e of effectsOf(t)) assert.equal(e.args.amount, 600);
    });
  }

  it('parallel gated calls are settled independently: one approved, one rejected', async () => {
    const t = thread();
    const r = await c.agent.invoke(`refund ${t} 850; refund ${t} 900`, { threadId: t });
    assert.equal(r.stopReason, 'interrupt');
    const open = await pending(t);
    assert.equal(open.length, 2);
    const a = open.find((x) => x.args.amount === 850)!;
    const b = open.find((x) => x.args.amount === 900)!;
    await decide(a, { type: 'approve' }, REVIEWERS.supervisor);
    await decide(b, { type: 'reject' }, REVIEWERS.supervisor);
    assert.equal((await c.agent.resume(t)).stopReason, 'end_turn');
    assert.deepEqual(amounts(t), [850]);
  });

  it('an approved call does not wait for its still-pending sibling', async () => {
    const t = thread();
    const r = await c.agent.invoke(`refund ${t} 850; refund ${t} 900`, { threadId: t });
    const open = await pending(r.threadId);
    assert.equal(open.length, 2);
    const a = open.find((x) => x.args.amount === 850)!;
    const b = open.find((x) => x.args.amount === 900)!;
    await decide(a, { type: 'approve' }, REVIEWERS.supervisor);
    const mid = await c.agent.resume(t);
    assert.equal(mid.stopReason, 'interrupt', 'the other call still waits');
    assert.deepEqual(amounts(t), [850], 'the approved call ran without waiting');
    assert.deepEqual(
      mid.interrupts.map((i) => i.id),
      [b.id],
    );
    await decide(b, { type: 'reject' }, REVIEWERS.supervisor);
    assert.equal((await c.agent.resume(t)).stopReason, 'end_turn');
    assert.deepEqual(amounts(t), [850]);
  });
}
