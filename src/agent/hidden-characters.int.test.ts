import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HiddenCharactersMode, Reviewer } from '../core/index.ts';
import type { Store } from '../store/types.ts';
import { allBackends } from '../testing/backends.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { scenario } from '../testing/scenario.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { supportPolicy, supportTools } from '../testing/support-fixture.ts';

// A $120 refund is `auto` under the support policy; the order id carries a right-to-left override, so a
// reviewer (or a log) would read "ORD-999" for the bytes "\u202e999-DRO".
const SPOOFED = '\u202e999-DRO';
const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`policy hiddenCharacters in the agent loop on ${backend.name}`, () => {
    let store: Store;
    before(async () => {
      store = await backend.create();
    });
    after(() => backend.destroy());

    async function run(mode: HiddenCharactersMode, orderId = SPOOFED, amount = 120) {
      const pay = new FakePayments();
      const s = await scenario({
        store,
        policy: { ...supportPolicy, hiddenCharacters: mode, defaults: { role: 'supervisor' } },
        tools: supportTools(pay),
        model: scriptedModel((ctx) =>
          ctx.lastToolResults.length
            ? { text: `result: ${JSON.stringify(ctx.lastToolResults[0]!.output)}` }
            : { toolCalls: [{ name: 'issue_refund', args: { orderId, customerId: 'test-001', amount } }] },
        ),
        agent: { name: 'support', version: '1.0.0', system: 'You help customers.' },
      });
      return { s, pay, turn: await s.user('refund $120 please') };
    }

    it("'block' refuses the spoofed call: the tool never runs and the model is told why", async () => {
      const { turn, pay } = await run('block');
      turn.expectStop('end_turn').expectToolNotRun('issue_refund').expectNotInterrupted();
      assert.equal(pay.count('refund'), 0);
      assert.match(turn.result.text, /hidden characters/);
    });

    it("'escalate' pauses the spoofed call for a person under rule hidden-characters; approving runs the exact bytes", async () => {
      const { s, turn, pay } = await run('escalate');
      const i = turn.expectInterrupted('issue_refund', {
        kind: 'approval',
        role: 'supervisor',
        args: { orderId: SPOOFED },
      });
      const [req] = (await store.listRequests({ threadId: s.threadId })).items;
      assert.equal(req?.tier, 'escalate');
      assert.equal(req?.ruleId, 'hidden-characters');
      assert.match(req?.reason ?? '', /U\+202E RIGHT-TO-LEFT OVERRIDE/);
      const next = await s.decide(i, { type: 'approve' }, sam);
      next.expectToolRan('issue_refund', { times: 1, args: { orderId: SPOOFED } });
      assert.equal(pay.count('refund'), 1);
    });

    it("'block': a reviewer's edit that brings hidden characters in is refused (policy_blocked) and changes nothing", async () => {
      const { s, turn } = await run('block', 'ORD-999', 900);
      const i = turn.expectInterrupted('issue_refund', { kind: 'approval', role: 'supervisor' });
      const before = (await store.listRequests({ threadId: s.threadId })).items;
      await assert.rejects(
        s.decide(i, { type: 'edit', args: { orderId: SPOOFED, customerId: 'test-001', amount: 900 } }, sam),
        (err: Error & { code?: string }) =>
          err.code === 'policy_blocked' && /U\+202E RIGHT-TO-LEFT OVERRIDE/.test(err.message),
      );
      assert.deepEqual((await store.listRequests({ threadId: s.threadId })).items, before, 'the request is unchanged');
    });

    it("'allow' (the default) and calls without hidden characters keep today's behaviour", async () => {
      (await run('allow')).turn.expectToolRan('issue_refund', { times: 1 }).expectNotInterrupted();
      (await run('block', 'ORD-999')).turn.expectToolRan('issue_refund', { times: 1 }).expectNotInterrupted();
    });
  });
}
