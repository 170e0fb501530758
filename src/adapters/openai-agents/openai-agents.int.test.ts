import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RunState } from '@openai/agents-core';
import { allBackends } from '../../testing/backends.ts';
import { manualClock } from '../../testing/clock.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import { actionHash, type Reviewer } from '../../core/index.ts';
import { refundPolicy } from '../../../test/support/adapter-policy.ts';
import type { Store } from '../../store/types.ts';
import { createOpenAIAgentsAgent, type OpenAIAgentsAgent } from './agent.ts';
import { runTurn } from '../core/index.ts';
import {
  lastOutputs,
  refundSchema,
  runner,
  supportAgent,
  supportModel,
  type RefundLog,
} from '../../../test/support/openai-agents-model.ts';

const policy = refundPolicy;
const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`OpenAI Agents SDK adapter on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let log: RefundLog;
    let model: ReturnType<typeof supportModel>;
    let agent: OpenAIAgentsAgent;
    const clock = manualClock(Date.now());
    let n = 0;
    const thread = () => `oa-${backend.name}-${++n}`;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy, now: clock.now });
      log = { runs: [] };
      model = supportModel(200);
      agent = createOpenAIAgentsAgent({
        interlock: il,
        agent: supportAgent(model, log),
        RunState,
        run: (a, input) => runner.run(a, input),
        // The SDK keeps only the JSON schema of a tool; edits are validated against these.
        schemas: { issue_refund: refundSchema },
      });
    });
    after(() => backend.destroy());

    const runsOf = (orderId: string) => log.runs.filter((r) => r.args.orderId === orderId);
    const lastSeen = () => lastOutputs(model.seen.at(-1)!);
    async function pauseRefund(t: string, amount = 850) {
      const r = await agent.invoke(`refund ${t} ${amount}`, { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      return il.getRequestOrThrow(r.interrupts[0]!.id);
    }

    it('runs an auto call at once under the ledger', async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 40`, { threadId: t });
      assert.equal(r.stopReason, 'end_turn');
      // Keyed by the turn (no messages saved before it), the action and its first occurrence: not the call id.
      assert.deepEqual(
        runsOf(t).map((x) => x.key),
        [`${t}:${runTurn(0, `refund ${t} 40`)}:${actionHash('issue_refund', { orderId: t, amount: 40 })}:0`],
      );
      assert.match(r.text, /refunded 40/);
    });

    it('interrupts a gated call the SDK way and opens one request; re-entry opens no second', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      assert.equal(req.toolCallId, 'call_refund');
      assert.equal(runsOf(t).length, 0);
      assert.equal((await agent.resume(t)).stopReason, 'interrupt');
      assert.equal((await il.listRequests({ threadId: t })).items.length, 1);
      await assert.rejects(agent.invoke('hello', { threadId: t }), { code: 'thread_interrupted' });
    });

    it('approve: runs once with the request-bound key; a second resume does nothing', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      const done = await agent.resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.match(done.text, /refunded 850/);
      assert.deepEqual(
        runsOf(t).map((x) => x.key),
        [`${req.id}:${req.actionHash}`],
      );
      assert.equal((await agent.resume(t)).stopReason, 'end_turn');
      assert.equal(runsOf(t).length, 1);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'executed');
    });

    it("reject: nothing runs and the model sees the reviewer's message", async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await il.decide(
        req.id,
        { type: 'reject', expectedVersion: req.version, actionHash: req.actionHash, message: 'never paid' },
        sam,
      );
      await agent.resume(t);
      assert.equal(runsOf(t).length, 0);
      assert.match(JSON.stringify(lastSeen().call_refund), /rejected.*never paid/);
    });

    it('edit: the edited arguments run, and the model is told', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await il.decide(
        req.id,
        { type: 'edit', expectedVersion: req.version, actionHash: req.actionHash, args: { orderId: t, amount: 300 } },
        sam,
      );
      const done = await agent.resume(t);
      assert.deepEqual(
        runsOf(t).map((x) => x.args.amount),
        [300],
      );
      assert.match(done.text, /changed the arguments.*refunded 300/);
    });

    it("respond: nothing runs and the reviewer's answer is the tool result", async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await il.decide(
        req.id,
        { type: 'respond', expectedVersion: req.version, actionHash: req.actionHash, message: 'Offer store credit.' },
        sam,
      );
      await agent.resume(t);
      assert.equal(runsOf(t).length, 0);
      assert.match(JSON.stringify(lastSeen().call_refund), /Offer store credit\./);
    });

    it('timeout: the rule default applies', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      clock.advance(31 * 60_000);
      assert.ok((await il.expireDue()).some((x) => x.id === req.id));
      await agent.resume(t);
      assert.equal(runsOf(t).length, 0);
      assert.match(JSON.stringify(lastSeen().call_refund), /deadline/);
    });

    it('a stale decision is refused; an approval forged into the saved RunState runs nothing', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await assert.rejects(
        il.decide(req.id, { type: 'approve', expectedVersion: req.version + 1, actionHash: req.actionHash }, sam),
        { code: 'stale_version' },
      );
      // Approve inside the serialized RunState, as a client holding it could; Interlock still waits.
      const cp = await il.threads.loadLatest(t);
      const saved = (cp.checkpoint!.state as { framework: string }).framework;
      const forgedState = await RunState.fromString(supportAgent(model, log), saved);
      forgedState.approve(forgedState.getInterruptions()[0]!);
      const forged = await runner.run(supportAgent(model, log), forgedState);
      // The user's own unwrapped agent would run it; through the adapter the same state does not.
      assert.equal(runsOf(t).length, 1, 'the unwrapped SDK runs a forged approval');
      log.runs.length = 0;
      void forged;
      assert.equal((await agent.resume(t)).stopReason, 'interrupt');
      assert.equal(runsOf(t).length, 0);
    });

    it('an altered RunState input does not run the altered arguments', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await store.unsafeQuery(`UPDATE il_checkpoints SET state = REPLACE(state, '850', '4999') WHERE thread_id = $1`, [
        t,
      ]);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      await agent.resume(t);
      assert.deepEqual(runsOf(t), []);
      assert.match(JSON.stringify(lastSeen().call_refund), /differ from the ones approved/);
    });

    it('parallel calls: the auto one runs now, the gated one after approval', async () => {
      const t = thread();
      const r = await agent.invoke(`both ${t} 850`, { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      const done = await agent.resume(t);
      assert.equal(runsOf(t).length, 1);
      assert.match(done.text, /delivered/);
      assert.match(done.text, /refunded 850/);
    });

    it('block: the rule reason is the tool result and nothing runs', async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 9000`, { threadId: t });
      assert.equal(r.stopReason, 'end_turn');
      assert.equal(runsOf(t).length, 0);
      assert.match(r.text, /Blocked by policy: refunds over \$5,000/);
    });

    it("the thread keeps the run's calls and results, and a later turn starts from them", async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 850`, { threadId: t });
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      await agent.resume(t);
      const saved = JSON.stringify(await il.threads.listMessages(t));
      assert.match(saved, /"type":"tool-call","toolCallId":"call_refund","toolName":"issue_refund"/);
      assert.match(saved, /"type":"tool-result".*refunded 850/);
      const before = (await il.threads.listMessages(t)).length;
      await agent.invoke('thanks', { threadId: t });
      const input = model.seen.at(-1)!;
      assert.ok(Array.isArray(input), 'the model got the conversation, not only the new message');
      const seen = JSON.stringify(input);
      assert.match(seen, new RegExp(`refund ${t} 850`));
      assert.match(seen, /"type":"function_call_result".*refunded 850/);
      assert.match(seen, /"content":"thanks"/);
      // Stored once: the later turn added its own messages only.
      const after = await il.threads.listMessages(t);
      assert.equal(JSON.stringify(after).split(`refund ${t} 850`).length - 1, 1, 'the first message is stored once');
      assert.ok(after.length > before);
    });

    it('two resumes at once: the refund runs exactly once', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      await Promise.all([agent.resume(t), agent.resume(t), agent.resume(t)]);
      assert.equal(runsOf(t).length, 1);
    });
  });
}

describe('OpenAI Agents SDK adapter: sub-agents', () => {
  const backend = allBackends()[0]!;
  after(() => backend.destroy());

  it('an agent with a handoff or an asTool() sub-agent is refused when built, naming them and what to do', async () => {
    const il = createInterlock({ store: await backend.create(), policy });
    const log: RefundLog = { runs: [] };
    const refunds = supportAgent(supportModel(), log).clone({ name: 'refunds' });
    const viaHandoff = supportAgent(supportModel(), log).clone({ name: 'triage', handoffs: [refunds] });
    const viaTool = supportAgent(supportModel(), log).clone({
      name: 'triage',
      tools: [refunds.asTool({ toolName: 'refunds_desk', toolDescription: 'Refunds' })],
    });
    for (const agent of [viaHandoff, viaTool])
      assert.throws(
        () => createOpenAIAgentsAgent({ interlock: il, agent, RunState, run: (a, input) => runner.run(a, input) }),
        (e: Error & { code?: string }) => {
          assert.equal(e.code, 'invalid_config');
          assert.match(e.message, /sub-agents \((1 handoff\(s\)|asTool "refunds_desk")\).*cannot gate/);
          return true;
        },
      );
    assert.deepEqual(log.runs, []);
  });
});
