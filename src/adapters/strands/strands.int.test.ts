import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../../testing/backends.ts';
import { manualClock } from '../../testing/clock.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import type { Reviewer } from '../../core/index.ts';
import type { Store } from '../../store/types.ts';
import { refundPolicy } from '../../../test/support/adapter-policy.ts';
import {
  refundSchema,
  refundTool,
  supportAgent,
  supportModel,
  toolResults,
  type RefundLog,
} from '../../../test/support/strands-support.ts';
import type { FakeStrandsModel } from '../../../test/support/strands-model.ts';
import { createStrandsAgent, INTERRUPT_NAME, type StrandsAgent, type StrandsRunInput } from './agent.ts';

const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`Strands adapter on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let log: RefundLog;
    let model: FakeStrandsModel;
    let agent: StrandsAgent;
    const inputs: StrandsRunInput[] = [];
    const clock = manualClock(Date.now());
    let n = 0;
    const thread = () => `st-${backend.name}-${++n}`;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: refundPolicy, now: clock.now });
      log = { runs: [] };
      model = supportModel();
      const refund = refundTool(log);
      agent = createStrandsAgent({
        name: 'support',
        interlock: il,
        agent: () => supportAgent(model, [refund]),
        schemas: { issue_refund: refundSchema },
        run: (a, input) => {
          inputs.push(input);
          return a.invoke(input);
        },
      });
    });
    after(() => backend.destroy());

    const runsOf = (orderId: string) => log.runs.filter((r) => r.args.orderId === orderId);
    const seen = () => toolResults(model.seen.at(-1)!);
    const decide = async (id: string, d: Record<string, unknown>) => {
      const req = await il.getRequestOrThrow(id);
      return il.decide(req.id, { ...d, expectedVersion: req.version, actionHash: req.actionHash } as never, sam);
    };

    it('an auto call runs once under the ledger, keyed, and the model reads its result', async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 40`, { threadId: t });
      assert.equal(r.stopReason, 'end_turn');
      assert.equal(runsOf(t).length, 1);
      assert.match(runsOf(t)[0]!.key, new RegExp(`^${t}:`));
      assert.match(r.text, /call_1: success refunded 40/);
    });

    it("a gated call raises the SDK's interrupt from BeforeToolCallEvent, backed by one request", async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 850`, { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      assert.equal(r.result?.stopReason, 'interrupt');
      assert.deepEqual(
        r.result?.interrupts?.map((i) => i.id),
        [`hook:beforeToolCall:call_1:${INTERRUPT_NAME}`],
      );
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      assert.equal(req.toolCallId, 'call_1');
      assert.deepEqual(runsOf(t), []);
      // The agent's session snapshot, interrupt and pending tool use included, is the checkpoint.
      const state = (await il.threads.loadLatest(t)).checkpoint!.state as {
        waiting: Array<{ interruptId: string; requestId: string }>;
        framework: { snapshot: { data: { interrupts: { activated: boolean } } } };
      };
      assert.deepEqual(state.waiting[0], {
        toolCallId: 'call_1',
        requestId: req.id,
        interruptId: `hook:beforeToolCall:call_1:${INTERRUPT_NAME}`,
      });
      assert.equal(state.framework.snapshot.data.interrupts.activated, true);
      assert.equal((await agent.resume(t)).stopReason, 'interrupt', 'nothing decided: still waiting');
      assert.equal((await il.listRequests({ threadId: t })).items.length, 1);
      await assert.rejects(agent.invoke('hello', { threadId: t }), { code: 'thread_interrupted' });
    });

    it("approve: the interrupt is answered by id with the reviewer's decision; the call runs once with the request's key", async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 850`, { threadId: t });
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      await decide(req.id, { type: 'approve' });
      const done = await agent.resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.deepEqual(inputs.at(-1), [
        {
          interruptResponse: {
            interruptId: `hook:beforeToolCall:call_1:${INTERRUPT_NAME}`,
            response: { requestId: req.id, decision: 'approve', by: 'sam' },
          },
        },
      ]);
      assert.deepEqual(
        runsOf(t).map((x) => x.key),
        [`${req.id}:${req.actionHash}`],
      );
      assert.match(done.text, /call_1: success refunded 850/);
      await agent.resume(t);
      assert.equal(runsOf(t).length, 1);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'executed');
    });

    it("reject cancels the call with the reviewer's message; respond answers it in the tool's place", async () => {
      const t1 = thread();
      const r1 = await agent.invoke(`refund ${t1} 850`, { threadId: t1 });
      await decide(r1.interrupts[0]!.id, { type: 'reject', message: 'never paid' });
      await agent.resume(t1);
      assert.equal(seen().call_1?.status, 'error');
      assert.match(seen().call_1!.text, /never paid/);
      const t2 = thread();
      const r2 = await agent.invoke(`refund ${t2} 850`, { threadId: t2 });
      await decide(r2.interrupts[0]!.id, { type: 'respond', message: 'Offer store credit.' });
      await agent.resume(t2);
      assert.deepEqual(seen().call_1, { status: 'success', text: 'Offer store credit.' });
      assert.deepEqual([...runsOf(t1), ...runsOf(t2)], []);
    });

    it('edit: the edited arguments run and the model is told; expiry applies the rule default', async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 850`, { threadId: t });
      await decide(r.interrupts[0]!.id, { type: 'edit', args: { orderId: t, amount: 300 } });
      await agent.resume(t);
      assert.deepEqual(
        runsOf(t).map((x) => x.args.amount),
        [300],
      );
      assert.match(seen().call_1!.text, /changed the arguments.*refunded 300/);
      const t2 = thread();
      await agent.invoke(`refund ${t2} 850`, { threadId: t2 });
      clock.advance(31 * 60_000);
      await il.expireDue();
      await agent.resume(t2);
      assert.deepEqual(runsOf(t2), []);
      assert.match(seen().call_1!.text, /deadline/);
    });

    it('block: the call is cancelled with the rule reason, audited, and nothing runs', async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 9000`, { threadId: t });
      assert.equal(r.stopReason, 'end_turn');
      assert.match(seen().call_1!.text, /Blocked by policy: refunds over \$5,000/);
      assert.ok((await il.audit.listAudit({ threadId: t })).some((e) => e.type === 'refused'));
      assert.deepEqual(runsOf(t), []);
    });

    it('an answer planted in the saved interrupt state of a still-pending call runs nothing: a fresh interrupt is raised', async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 850; refund ${t} 900`, { threadId: t });
      const [a, b] = await Promise.all(r.interrupts.map((i) => il.getRequestOrThrow(i.id)));
      const cp = (await il.threads.loadLatest(t)).checkpoint!;
      const state = cp.state as { framework: { snapshot: { data: { interrupts: Forged } } } };
      for (const i of Object.values(state.framework.snapshot.data.interrupts.interrupts))
        i.response = { approved: true };
      await store.unsafeQuery(`UPDATE il_checkpoints SET state = $1 WHERE id = $2`, [JSON.stringify(state), cp.id]);
      const approved = a!.args.amount === 850 ? a! : b!;
      const other = approved === a ? b! : a!;
      await decide(approved.id, { type: 'approve' });
      const mid = await agent.resume(t);
      assert.equal(mid.stopReason, 'interrupt');
      assert.deepEqual(
        runsOf(t).map((x) => x.args.amount),
        [850],
      );
      assert.deepEqual(
        mid.interrupts.map((i) => i.id),
        [other.id],
      );
      assert.match(mid.result!.interrupts![0]!.id, new RegExp(`^hook:beforeToolCall:call_\\d:${INTERRUPT_NAME}:`));
      await decide(other.id, { type: 'approve' });
      assert.equal((await agent.resume(t)).stopReason, 'end_turn');
      assert.deepEqual(
        runsOf(t)
          .map((x) => x.args.amount)
          .sort(),
        [850, 900],
      );
    });

    it('arguments altered in the saved snapshot do not run; the model reads why', async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 850`, { threadId: t });
      await store.unsafeQuery(
        `UPDATE il_checkpoints SET state = REPLACE(state, ':850', ':4999') WHERE thread_id = $1`,
        [t],
      );
      await decide(r.interrupts[0]!.id, { type: 'approve' });
      await agent.resume(t);
      assert.deepEqual(runsOf(t), []);
      assert.match(seen().call_1!.text, /differ from the ones approved/);
    });

    it("the thread keeps the run's calls and results; a later turn starts from the saved conversation", async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 850`, { threadId: t });
      await decide(r.interrupts[0]!.id, { type: 'approve' });
      await agent.resume(t);
      const saved = JSON.stringify(await il.threads.listMessages(t));
      assert.match(saved, /"type":"tool-call","toolCallId":"call_1","toolName":"issue_refund"/);
      assert.match(saved, /"type":"tool-result".*refunded 850/);
      await agent.invoke('thanks', { threadId: t });
      assert.equal(model.seen.at(-1)!.length, 5, 'the model got the whole conversation');
      const after = JSON.stringify(await il.threads.listMessages(t));
      assert.equal(after.split(`refund ${t} 850`).length - 1, 1, 'the first message is stored once');
      assert.match(after, /thanks/);
    });

    it('two resumes at once run the approved call exactly once', async () => {
      const t = thread();
      const r = await agent.invoke(`refund ${t} 850`, { threadId: t });
      await decide(r.interrupts[0]!.id, { type: 'approve' });
      await Promise.all([agent.resume(t), agent.resume(t), agent.resume(t)]);
      assert.equal(runsOf(t).length, 1);
    });
  });
}

type Forged = { interrupts: Record<string, { response?: unknown }> };
