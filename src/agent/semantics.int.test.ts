import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { scenario, type Scenario, type ScenarioAgentOptions } from '../testing/scenario.ts';
import type { ModelPrompt } from '../testing/scenario-recorder.ts';
import { scriptedModel, type ScriptStep } from '../testing/scripted-model.ts';
import { supportPolicy, supportScript, supportTools } from '../testing/support-fixture.ts';
import type { Reviewer } from '../core/index.ts';
import type { Store } from '../store/types.ts';
import type { HookCall } from './hooks.ts';

// Loop semantics beyond agent.int.test.ts: hooks, batch and loop-control
// interrupts, the notify tier, quorum, escalating edits, concurrent resumes.
const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };
const sue: Reviewer = { id: 'sue', roles: ['supervisor'] };
const sid: Reviewer = { id: 'sid', roles: ['supervisor'] };
const fay: Reviewer = { id: 'fay', roles: ['fraud'] };

const refund = (amount: number, id?: string) => ({
  name: 'issue_refund',
  args: { orderId: 'ORD-999', customerId: 'test-001', amount },
  ...(id ? { id } : {}),
});
const lookUp = (orderId: string) => ({ name: 'look_up_order', args: { orderId } });

/** The tool results the model received last in `prompt` (the final message must be a tool message). */
function toolResults(prompt: ModelPrompt | undefined): Array<{ toolName: string; output: unknown }> {
  const last = prompt?.[prompt.length - 1];
  assert.equal(last?.role, 'tool', 'the model was last shown tool results');
  return last.role === 'tool' ? last.content.map((p) => ({ toolName: p.toolName, output: p.output.value })) : [];
}

for (const backend of allBackends()) {
  describe(`agent semantics on ${backend.name}`, () => {
    let store: Store;
    before(async () => {
      store = await backend.create();
    });
    after(() => backend.destroy());

    /** A support agent scenario; `script` replaces the default support model. */
    async function make(
      agent: Partial<ScenarioAgentOptions> = {},
      script: ScriptStep[] | typeof supportScript = supportScript,
    ): Promise<{ s: Scenario; pay: FakePayments }> {
      const pay = new FakePayments();
      const s = await scenario({
        store,
        policy: supportPolicy,
        tools: supportTools(pay),
        model: scriptedModel(script),
        agent: { name: 'support', version: '1.0.0', system: 'You help customers.', ...agent },
      });
      return { s, pay };
    }

    describe('beforeToolCall', () => {
      it('cancel: the tool does not run and the model gets the hook message', async () => {
        const seen: HookCall[] = [];
        const { s } = await make({
          hooks: {
            beforeToolCall: (call) => {
              seen.push(call);
              return call.toolName === 'issue_refund'
                ? { cancel: 'Refunds are paused during the migration; offer store credit.' }
                : undefined;
            },
          },
        });
        const turn = await s.user('refund $120 and look up my order');
        turn.expectStop('end_turn').expectToolNotRun('issue_refund').expectToolRan('look_up_order', { times: 1 });
        assert.deepEqual(
          seen.map((c) => c.toolName),
          ['issue_refund', 'look_up_order'],
        );
        const results = toolResults(s.prompts[1]);
        assert.deepEqual(
          results.find((r) => r.toolName === 'issue_refund')?.output,
          'Refunds are paused during the migration; offer store credit.',
        );
        s.expectEveryToolCallAnswered();
      });

      it('rewrite: the rewritten call is gated again by the policy ($400 rewritten to $900 pauses)', async () => {
        const { s } = await make({
          hooks: {
            beforeToolCall: (call) =>
              call.toolName === 'issue_refund' && call.args.amount === 400
                ? { rewrite: { ...call.args, amount: 900 } }
                : undefined,
          },
        });
        const turn = await s.user('refund $400 please');
        const i = turn.expectInterrupted('issue_refund', {
          kind: 'approval',
          role: 'supervisor',
          args: { amount: 900 },
        });
        turn.expectToolNotRun('issue_refund');
        await turn.expectCheckpoint({ pendingTool: 'issue_refund', pendingArgs: { amount: 900 } });
        const audit = await store.listAudit({ threadId: s.threadId });
        const edited = audit.find((e) => e.type === 'edited');
        assert.deepEqual(
          [edited?.payload.by, (edited?.payload.originalArgs as { amount?: number }).amount],
          ['beforeToolCall', 400],
          'the audit shows the hook rewrote the call',
        );

        const next = await s.decide(i, { type: 'approve' }, sam);
        next.expectStop('end_turn').expectToolRan('issue_refund', { times: 1, args: { amount: 900 } });
        s.expectToolNotRun('look_up_order');
        s.expectToolRan('issue_refund', { times: 1 });
        s.expectEveryToolCallAnswered();
      });

      it('rewrite to a small amount runs without asking', async () => {
        const { s } = await make({
          hooks: {
            beforeToolCall: (call) =>
              call.toolName === 'issue_refund' ? { rewrite: { ...call.args, amount: 50 } } : undefined,
          },
        });
        const turn = await s.user('refund $850 please');
        turn.expectNotInterrupted().expectToolRan('issue_refund', { times: 1, args: { amount: 50 } });
      });

      const fraudHook = {
        beforeToolCall: (call: HookCall) =>
          call.toolName === 'issue_refund'
            ? { interrupt: { name: 'fraud_check', reason: 'new customer, large refund', role: 'fraud' } }
            : undefined,
      };

      it('interrupt, approved: the call continues to the policy gate', async () => {
        const { s } = await make({ hooks: fraudHook });
        const turn = await s.user('refund $850 please');
        const hook = turn.expectInterrupted('fraud_check', { kind: 'hook', role: 'fraud', args: { amount: 850 } });
        turn.expectToolNotRun('issue_refund');
        await turn.expectNotified('fraud');
        const gated = await s.decide(hook, { type: 'approve' }, fay);
        // Cleared by fraud, the $850 refund still needs the policy's supervisor.
        const i = gated.expectInterrupted('issue_refund', { kind: 'approval', role: 'supervisor' });
        gated.expectToolNotRun('issue_refund');
        assert.equal(gated.modelCalls, 0, 'no model call while the call has no result');
        const done = await s.decide(i, { type: 'approve' }, sam);
        done.expectStop('end_turn').expectToolRan('issue_refund', { times: 1 });
        s.expectEveryToolCallAnswered();
      });

      it('interrupt, approved, on a call the policy allows: it runs', async () => {
        const { s } = await make({ hooks: fraudHook });
        const turn = await s.user('refund $120 please');
        const next = await s.decide(turn.expectInterrupted('fraud_check'), { type: 'approve' }, fay);
        next.expectStop('end_turn').expectToolRan('issue_refund', { times: 1, args: { amount: 120 } });
      });

      it('interrupt, rejected: the model gets the rejection and the tool does not run', async () => {
        const { s } = await make({ hooks: fraudHook });
        const turn = await s.user('refund $850 please');
        const next = await s.decide(
          turn.interrupt('fraud_check'),
          { type: 'reject', message: 'matches a fraud pattern' },
          fay,
        );
        next
          .expectStop('end_turn')
          .expectReply(/store credit/)
          .expectReply('matches a fraud pattern');
        s.expectToolNotRun('issue_refund');
        assert.match(String(toolResults(s.prompts[1])[0]?.output), /rejected.*matches a fraud pattern/);
        s.expectEveryToolCallAnswered();
      });
    });

    describe('beforeToolBatch', () => {
      const bulkHook = {
        beforeToolBatch: (calls: HookCall[]) => ({
          interrupt: { name: 'bulk_actions', reason: `${calls.length} actions at once`, role: 'supervisor' },
        }),
      };
      const twoCalls: ScriptStep[] = [{ toolCalls: [lookUp('ORD-1'), refund(120)] }, { text: 'All done.' }];

      it('one decision covers the batch; approved, every call goes on', async () => {
        const { s } = await make({ hooks: bulkHook }, twoCalls);
        const turn = await s.user('look up ORD-1 and refund $120');
        assert.equal(turn.interrupts.length, 1, 'one interrupt for the whole batch');
        const i = turn.expectInterrupted('bulk_actions', { kind: 'batch', role: 'supervisor' });
        assert.equal(turn.runs.length, 0, 'nothing ran before the decision');
        const next = await s.decide(i, { type: 'approve' }, sam);
        next
          .expectStop('end_turn')
          .expectToolRan('look_up_order', { times: 1 })
          .expectToolRan('issue_refund', { times: 1 });
        s.expectEveryToolCallAnswered();
      });

      it('rejected: every call of the batch gets the rejection', async () => {
        const { s } = await make({ hooks: bulkHook }, twoCalls);
        const turn = await s.user('look up ORD-1 and refund $120');
        const next = await s.decide(
          turn.interrupt('bulk_actions'),
          { type: 'reject', message: 'one thing at a time' },
          sam,
        );
        next.expectStop('end_turn');
        assert.equal(s.runs.length, 0, 'no tool ran');
        const results = toolResults(s.prompts[1]);
        assert.deepEqual(
          results.map((r) => r.toolName),
          ['look_up_order', 'issue_refund'],
        );
        for (const r of results) assert.match(String(r.output), /rejected.*one thing at a time/);
        s.expectEveryToolCallAnswered();
      });

      it('is not asked for a single call', async () => {
        let asked = 0;
        const { s } = await make({ hooks: { beforeToolBatch: () => (asked++, bulkHook.beforeToolBatch([])) } });
        (await s.user('look up my order')).expectStop('end_turn');
        assert.equal(asked, 0);
      });
    });

    describe('budget (maxToolCalls, askAt)', () => {
      const budget = { maxToolCalls: 2, askAt: 1, role: 'supervisor' };
      // Two lookups reach the budget; the loop asks before the next model call.
      const steps: ScriptStep[] = [
        { toolCalls: [lookUp('ORD-1'), lookUp('ORD-2')] },
        { toolCalls: [lookUp('ORD-3')] },
        { text: 'Checked all three.' },
      ];

      it('approve extends the budget and the loop continues', async () => {
        const { s } = await make({ budget }, steps);
        const turn = await s.user('check my orders');
        const i = turn.expectInterrupted('budget', { kind: 'budget', role: 'supervisor' });
        turn.expectToolRan('look_up_order', { times: 2 });
        assert.equal(turn.modelCalls, 1);
        await turn.expectCheckpoint();
        const next = await s.decide(i, { type: 'approve' }, sam);
        next
          .expectStop('end_turn')
          .expectReply('Checked all three.')
          .expectToolRan('look_up_order', { times: 1, args: { orderId: 'ORD-3' } });
        assert.equal(next.modelCalls, 2);
        s.expectEveryToolCallAnswered();
      });

      it("respond adds the reviewer's message to the conversation and continues", async () => {
        const { s } = await make({ budget }, steps);
        const turn = await s.user('check my orders');
        const next = await s.decide(
          turn.interrupt('budget'),
          { type: 'respond', message: 'Only ORD-3 is left; stop after it.' },
          sam,
        );
        next.expectResumed();
        const prompt = s.prompts[1]!;
        const last = prompt[prompt.length - 1];
        assert.deepEqual(last, {
          role: 'user',
          content: [{ type: 'text', text: '[Reviewer, on the budget] Only ORD-3 is left; stop after it.' }],
        });
        assert.ok(
          next.result.messages.some((m) => m.role === 'user' && JSON.stringify(m).includes('Only ORD-3')),
          'the message is part of the stored conversation',
        );
        s.expectEveryToolCallAnswered();
      });

      it('reject aborts the thread', async () => {
        const { s } = await make({ budget }, steps);
        const turn = await s.user('check my orders');
        const next = await s.decide(turn.interrupt('budget'), { type: 'reject', message: 'enough' }, sam);
        next.expectStop('aborted');
        assert.equal(next.result.status, 'aborted');
        assert.equal(next.modelCalls, 0);
        assert.equal((await store.getThread(s.threadId))?.status, 'aborted');
        (await s.resume()).expectStop('aborted');
        s.expectToolRan('look_up_order', { times: 2 });
      });
    });

    it('confidence below the threshold pauses before any tool runs', async () => {
      const scores: number[] = [];
      const { s } = await make(
        { confidence: { score: () => (scores.push(0.3), 0.3), threshold: 0.5, role: 'supervisor' } },
        [{ toolCalls: [lookUp('ORD-1'), refund(120)] }, { text: 'Done.' }],
      );
      const turn = await s.user('look up ORD-1 and refund $120');
      const i = turn.expectInterrupted('low_confidence', { kind: 'confidence', role: 'supervisor' });
      assert.equal(turn.runs.length, 0, 'not even the auto tool ran');
      await turn.expectCheckpoint();
      const next = await s.decide(i, { type: 'approve' }, sam);
      next
        .expectStop('end_turn')
        .expectToolRan('look_up_order', { times: 1 })
        .expectToolRan('issue_refund', { times: 1 });
      assert.deepEqual(scores, [0.3], 'scored once, for the turn that called tools');
      s.expectEveryToolCallAnswered();
    });

    it('the notify tier runs the tool and queues a notice to the role', async () => {
      const { s } = await make();
      const turn = await s.user('email me the receipt');
      turn.expectNotInterrupted().expectStop('end_turn').expectToolRan('send_email', { times: 1 });
      const [job] = await turn.expectNotified('supervisor', { tool: 'send_email', fyi: true });
      assert.equal(job?.requestId, null, 'a notice, not a request to decide');
      const audit = await store.listAudit({ threadId: s.threadId });
      assert.ok(
        audit.some((e) => e.type === 'auto_executed' && e.payload.tool === 'send_email' && e.payload.tier === 'notify'),
      );
    });

    it('quorum: an escalate rule needing 2 approvals waits after one and resumes after the second', async () => {
      const { s, pay } = await make();
      const turn = await s.user('refund $2500 please');
      const i = turn.expectInterrupted('issue_refund', { tier: 'escalate', approvalsRequired: 2, role: 'supervisor' });
      assert.match(i.message, /2 supervisors/);
      const one = await s.decide(i, { type: 'approve' }, sam);
      assert.equal(one.decision?.outcome, 'pending');
      one.expectInterrupted('issue_refund');
      assert.equal(one.interrupt('issue_refund').id, i.id);
      one.expectToolNotRun('issue_refund');
      assert.equal(one.modelCalls, 0);
      await assert.rejects(
        s.decide(i, { type: 'approve' }, sam),
        /already approved/,
        'the same reviewer cannot count twice',
      );
      const two = await s.decide(i, { type: 'approve' }, sue);
      assert.equal(two.decision?.outcome, 'authorized');
      two.expectStop('end_turn').expectToolRan('issue_refund', { times: 1, args: { amount: 2500 } });
      assert.equal(pay.count('refund'), 1);
      s.expectEveryToolCallAnswered();
    });

    it('an edit that raises the tier becomes a new request, and the interrupt follows it', async () => {
      const { s, pay } = await make();
      const turn = await s.user('refund $850 please');
      const first = turn.expectInterrupted('issue_refund', { tier: 'approve', approvalsRequired: 1 });
      const edited = await s.decide(first, { type: 'edit', args: { ...first.args, amount: 2500 } }, sam);
      assert.equal(edited.decision?.outcome, 'superseded');
      const newId = edited.decision?.newRequest?.id;
      assert.ok(newId);
      assert.notEqual(newId, first.id);
      const moved = edited.expectInterrupted('issue_refund', {
        tier: 'escalate',
        approvalsRequired: 2,
        args: { amount: 2500 },
      });
      assert.equal(moved.id, newId, 'resume reports the new request');
      edited.expectToolNotRun('issue_refund');
      await edited.expectNotified('supervisor', { tool: 'issue_refund' });
      await edited.expectCheckpoint({ pendingTool: 'issue_refund' });

      // The editor proposed the $2,500: the two approvals come from others.
      await assert.rejects(
        s.decide(moved, { type: 'approve' }, sam),
        /proposed this action/,
        'the editor cannot approve what they wrote',
      );
      (await s.decide(moved, { type: 'approve' }, sue)).expectInterrupted('issue_refund');
      const done = await s.decide(moved, { type: 'approve' }, sid);
      done.expectStop('end_turn').expectToolRan('issue_refund', { times: 1, args: { amount: 2500 } });
      (await s.resume()).expectToolNotRun('issue_refund');
      assert.deepEqual(
        pay.effects.map((e) => e.args.amount),
        [2500],
      );
      assert.equal((await s.interlock.getRequestOrThrow(newId)).status, 'executed');
      s.expectEveryToolCallAnswered();
    });

    /** Approve the thread's pending refund without resuming (the resume is the test's business). */
    async function approveRefund(s: Scenario, id: string): Promise<void> {
      const req = await s.interlock.getRequestOrThrow(id);
      await s.interlock.decide(id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
    }

    it('two concurrent resumes of a thread: one runs, the other is busy or finds it done, the tool runs once', async () => {
      const { s, pay } = await make();
      const turn = await s.user('refund $850 please');
      await approveRefund(s, turn.interrupt('issue_refund').id);
      const [a, b] = await Promise.all([s.agent.resume(s.threadId), s.agent.resume(s.threadId)]);
      // Which one wins is timing: the other either finds the lease held (busy) or, if the first already
      // finished, nothing left to do. The next test holds a run mid-loop to check `busy` deterministically.
      const outcomes = [a.stopReason, b.stopReason].sort();
      assert.ok(
        JSON.stringify(outcomes) === '["busy","end_turn"]' || JSON.stringify(outcomes) === '["end_turn","end_turn"]',
        String(outcomes),
      );
      s.expectToolRan('issue_refund', { times: 1 });
      assert.equal(pay.count('refund'), 1);
      assert.equal(s.prompts.length, 2, 'the reply after the tool result is generated once');
      assert.deepEqual(
        (await s.agent.messages(s.threadId)).map((m) => m.role),
        ['user', 'assistant', 'tool', 'assistant'],
      );
      // The lease is free again: a later resume finds nothing to do.
      (await s.resume()).expectStop('end_turn').expectToolNotRun('issue_refund');
    });

    it(
      'a resume while another run of the thread is mid-loop (in this process) is busy',
      { timeout: 10_000 },
      async () => {
        // The model's reply after the tool result waits until the test lets it go.
        let entered!: () => void;
        const inModel = new Promise<void>((r) => (entered = r));
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        const steps: ScriptStep[] = [{ toolCalls: [refund(850)] }, { text: 'Your refund is on its way.' }];
        const base = scriptedModel(steps);
        const pay = new FakePayments();
        const s = await scenario({
          store,
          policy: supportPolicy,
          tools: supportTools(pay),
          model: {
            specificationVersion: base.specificationVersion,
            provider: base.provider,
            modelId: base.modelId,
            async doGenerate(o) {
              if (base.calls === 1) {
                entered();
                await held;
              }
              return base.doGenerate(o);
            },
          },
          agent: { name: 'support', version: '1.0.0', system: 'You help customers.' },
        });
        const turn = await s.user('refund $850 please');
        await approveRefund(s, turn.interrupt('issue_refund').id);
        const first = s.agent.resume(s.threadId);
        await inModel;
        const second = await s.agent.resume(s.threadId);
        assert.equal(second.stopReason, 'busy', 'the thread is leased to the first run');
        release();
        assert.equal((await first).stopReason, 'end_turn');
        s.expectToolRan('issue_refund', { times: 1 });
        assert.equal(base.calls, 2, 'no model call is repeated');
        assert.deepEqual(
          (await s.agent.messages(s.threadId)).map((m) => m.role),
          ['user', 'assistant', 'tool', 'assistant'],
        );
      },
    );

    it('the model never sees a tool call without its result', async () => {
      const { s } = await make({
        hooks: { beforeToolCall: (c) => (c.toolName === 'send_email' ? { cancel: 'No emails today.' } : undefined) },
      });
      // Auto, gated, blocked and cancelled calls in one batch; then a second gated turn.
      const turn = await s.user('refund $900, cancel my plan, look up my order, delete my data and email me');
      const refundI = turn.expectInterrupted('issue_refund');
      const cancelI = turn.expectInterrupted('cancel_subscription');
      const mid = await s.decide(refundI, { type: 'approve' }, sam);
      mid.expectInterrupted('cancel_subscription');
      await s.decide(cancelI, { type: 'reject', message: 'in contract' }, { id: 'rita', roles: ['retention_lead'] });
      const again = await s.user('refund $700 too');
      await s.timeout();
      assert.ok(again.interrupts.length === 1);
      assert.ok(s.prompts.length >= 3);
      s.expectEveryToolCallAnswered();
      for (const p of s.prompts) {
        const ids = p.flatMap((m) => (m.role === 'tool' ? m.content.map((c) => c.toolCallId) : []));
        assert.equal(new Set(ids).size, ids.length, 'each call has exactly one result');
      }
    });
  });
}
