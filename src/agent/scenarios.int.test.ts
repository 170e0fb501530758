import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { scenario } from '../testing/scenario.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { supportPolicy, supportScript, supportTools } from '../testing/support-fixture.ts';
import { refundsScript, supportTreeScript, treePolicy } from '../testing/multi-agent-fixture.ts';
import type { Reviewer } from '../core/index.ts';
import type { Store } from '../store/types.ts';

// The project's own order-support scenarios, written with the scenario harness users get from `interlock-approvals/testing`.
const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`support scenarios on ${backend.name}`, () => {
    let store: Store;
    before(async () => {
      store = await backend.create();
    });
    after(() => backend.destroy());

    async function support() {
      const pay = new FakePayments();
      const s = await scenario({
        store,
        policy: supportPolicy,
        tools: supportTools(pay),
        model: scriptedModel(supportScript),
        agent: { name: 'support', version: '1.0.0', system: 'You help customers with their orders.' },
      });
      return { s, pay };
    }

    it('a refund over $500 needs a supervisor; approved, it runs once', async () => {
      const { s, pay } = await support();
      const turn = await s.user('I need a full refund for order ORD-999');
      const i = turn.expectInterrupted('issue_refund', {
        kind: 'approval',
        role: 'supervisor',
        tier: 'approve',
        args: { amount: 850 },
      });
      assert.match(i.message, /supervisor/, 'the app can tell the customer what is happening');
      turn.expectToolNotRun('issue_refund');
      await turn.expectCheckpoint({ pendingTool: 'issue_refund', pendingArgs: { amount: 850 } });
      await turn.expectNotified('supervisor', { tool: 'issue_refund', fyi: false });

      const next = await s.decide(i, { type: 'approve' }, sam);
      assert.equal(next.decision?.outcome, 'authorized');
      next
        .expectResumed()
        .expectStop('end_turn')
        .expectReply(/refund_1/);
      next.expectToolRan('issue_refund', { times: 1, args: { amount: 850 } });
      assert.equal(next.modelCalls, 1, 'resume continues: only the reply after the tool result');
      // A second resume (a duplicate job) changes nothing.
      (await s.resume()).expectStop('end_turn').expectToolNotRun('issue_refund');
      s.expectToolRan('issue_refund', { times: 1 });
      assert.equal(pay.count('refund'), 1);
      s.expectEveryToolCallAnswered();
    });

    it('a multi-agent scenario: the refunds sub-agent pauses the tree, approved, it runs once and the parent answers', async () => {
      const pay = new FakePayments();
      const s = await scenario({
        store,
        policy: treePolicy,
        tools: [],
        model: scriptedModel(supportTreeScript),
        agent: { name: 'support', version: '1.0.0', system: 'You help customers; refunds go to the refunds agent.' },
        subAgents: [
          {
            agent: { name: 'refunds', version: '1.0.0', system: 'You issue refunds.' },
            model: scriptedModel(refundsScript),
            tools: supportTools(pay).filter((t) => t.name === 'issue_refund'),
            tool: { name: 'ask_refunds', description: 'Ask the refunds specialist.' },
          },
        ],
      });
      const turn = await s.user('Refund $850 please');
      const i = turn.expectInterrupted('issue_refund', { role: 'supervisor', args: { amount: 850 } });
      assert.deepEqual(i.path, ['support', 'refunds']);
      assert.equal(turn.modelCalls, 2, 'one call of each agent');
      turn.expectToolNotRun('issue_refund');
      const next = await s.decide(i, { type: 'approve' }, sam);
      next.expectStop('end_turn').expectReply(/The refunds team says: Refund done/);
      assert.equal(next.modelCalls, 2, 'each agent answers once more; nothing before the pause repeats');
      s.expectToolRan('issue_refund', { times: 1, args: { amount: 850 } });
      assert.equal(pay.count('refund'), 1);
      s.expectEveryToolCallAnswered();
    });

    it('a refund up to $500 runs without asking', async () => {
      const { s } = await support();
      const turn = await s.user('Please refund $120 for my order');
      turn
        .expectNotInterrupted()
        .expectStop('end_turn')
        .expectReply(/refund_1/);
      turn.expectToolRan('issue_refund', { times: 1, args: { amount: 120 } });
    });

    it('a rejection leads to an alternative offer (store credit)', async () => {
      const { s } = await support();
      const turn = await s.user('I need a full refund for order ORD-999');
      const next = await s.decide(
        turn.interrupt('issue_refund'),
        { type: 'reject', message: 'outside the 30-day return window' },
        sam,
      );
      assert.equal(next.decision?.outcome, 'rejected');
      next
        .expectResumed()
        .expectStop('end_turn')
        .expectReply(/store credit/)
        .expectReply('outside the 30-day return window');
      s.expectToolNotRun('issue_refund');
      s.expectEveryToolCallAnswered();
    });

    it('an edit to a partial refund runs the edited amount once', async () => {
      const { s, pay } = await support();
      const turn = await s.user('I need a full refund for order ORD-999');
      const i = turn.expectInterrupted('issue_refund', { args: { amount: 850 } });
      const next = await s.decide(i, { type: 'edit', args: { ...i.args, amount: 300 } }, sam);
      assert.equal(next.decision?.outcome, 'authorized');
      next.expectStop('end_turn').expectReply(/"amount":300/);
      next.expectToolRan('issue_refund', { times: 1, args: { amount: 300 } });
      (await s.resume()).expectToolNotRun('issue_refund');
      s.expectToolRan('issue_refund', { times: 1 });
      assert.deepEqual(
        pay.effects.map((e) => e.args.amount),
        [300],
      );
    });

    it('a timeout rejects by default', async () => {
      const { s } = await support();
      const turn = await s.user('I need a full refund for order ORD-999');
      const i = turn.expectInterrupted('issue_refund');
      const late = await s.timeout();
      assert.deepEqual(
        late.expired.map((r) => [r.id, r.status, r.resolution?.applied]),
        [[i.id, 'expired', 'reject']],
      );
      late
        .expectResumed()
        .expectStop('end_turn')
        .expectReply(/deadline/);
      s.expectToolNotRun('issue_refund');
      await assert.rejects(s.decide(i, { type: 'approve' }, sam), /resolved|expired/i, 'a late decision is refused');
      s.expectEveryToolCallAnswered();
    });
  });
}
