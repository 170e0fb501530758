/**
 * An in-process answer that approves a call claims its execution in the decision's own transaction:
 * the decision and the claim are one commit, the run that follows executes under that claim, and a
 * claim the run does not use is given back. Both backends. The crash side (a kill right after that
 * commit) is test/reliability/boundaries.int.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportPolicy, supportScript, supportTools } from '../testing/support-fixture.ts';
import { createInterlock, idempotencyKey, type Interlock } from '../engine/index.ts';
import { InterlockError, type Reviewer } from '../core/index.ts';
import type { Store } from '../store/types.ts';
import { createAgent, tool, type Tool } from './index.ts';

const sup: Reviewer = { id: 'sam', roles: ['supervisor'] };

/** The thread row a run's lease claim names (as the agent builds it). */
const threadRow = (id: string, now: number) => ({
  id,
  agent: 'support',
  agentVersion: '1.0.0',
  status: 'running' as const,
  messageCount: 0,
  abortRequested: false,
  metadata: {},
  createdAt: now,
  updatedAt: now,
});

for (const backend of allBackends()) {
  describe(`the decision claims the approved call's execution, on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const clock = manualClock();
    let n = 0;
    const tid = () => `cwd-${backend.name}-${++n}`;
    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: supportPolicy, now: clock.now });
    });
    after(() => backend.destroy());

    /** Approve in-process as an agent's invoke does, with the thread's lease and the execution's claim. */
    const approveClaiming = (id: string, threadId: string, leaseMs: number) => {
      const now = clock.now();
      return il.answer(id, { type: 'approve' }, sup, {
        answering: threadId,
        claimThread: { row: threadRow(threadId, now), owner: 'run-a', leaseUntil: now + 60_000 },
        claimExecution: { leaseMs, when: () => true },
      });
    };

    const agentWith = (tools: Tool[]) =>
      createAgent({
        name: 'support',
        version: '1.0.0',
        model: scriptedModel(supportScript),
        system: 'You help customers.',
        tools,
        interlock: il,
      });

    /** The support tools, with the refund replaced by `refund`. */
    const withRefund = (pay: FakePayments, refund: Tool) => [
      ...supportTools(pay).filter((t) => t.name !== 'issue_refund'),
      refund,
    ];

    it('commits the decision with the claim: the answer is three commits, and the tool runs once under the request', async () => {
      const pay = new FakePayments();
      const threadId = tid();
      const seen: Array<Record<string, unknown>> = [];
      let key = '';
      const refund = tool({
        name: 'issue_refund',
        description: 'Refund an order',
        schema: z.object({ orderId: z.string(), customerId: z.string(), amount: z.number().positive() }),
        execute: async (args, { idempotencyKey: k, attempt }) => {
          // What another process sees while the refund runs: all of it committed by the decision.
          const [req, row, thread] = await Promise.all([
            store.listRequests({ threadId }).then((p) => p.items[0]),
            store.getExecution(k),
            store.getThread(threadId),
          ]);
          seen.push({ request: req?.status, execution: row?.status, attempts: row?.attempts, thread: thread?.status });
          assert.equal(k, key);
          assert.equal(attempt, 1);
          return pay.apply('refund', args, k);
        },
      });
      const agent = agentWith(withRefund(pay, refund));
      const paused = await agent.invoke('refund $850', { threadId });
      const id = paused.interrupts[0]!.id;
      key = idempotencyKey(id, (await il.getRequestOrThrow(id)).actionHash);

      const before = store.stats.transactions;
      const end = await agent.invoke(null, { threadId, responses: { [id]: { type: 'approve' } }, reviewer: sup });
      // The decision with the claim, the outcome, the final checkpoint: one commit fewer than claiming apart.
      assert.equal(store.stats.transactions - before, 3);

      assert.equal(end.stopReason, 'end_turn');
      assert.deepEqual(seen, [{ request: 'executing', execution: 'running', attempts: 1, thread: 'running' }]);
      assert.equal(pay.count('refund'), 1);
      assert.equal((await il.getRequestOrThrow(id)).status, 'executed');
      const row = await store.getExecution(key);
      assert.equal(row?.status, 'succeeded');
      assert.equal(row?.attempts, 1);
      assert.equal(row?.requestId, id);
      const story = await il.explain(id);
      assert.deepEqual(
        story.events.map((e) => e.type).filter((t) => t === 'approved' || t === 'executed'),
        ['approved', 'executed'],
      );
      assert.equal((await il.verifyAudit()).ok, true);
    });

    it('claims nothing when the invoke brings app state: that is made durable with a claim of its own', async () => {
      const pay = new FakePayments();
      const agent = agentWith(supportTools(pay));
      const threadId = tid();
      const paused = await agent.invoke('refund $850', { threadId });
      const id = paused.interrupts[0]!.id;
      const before = store.stats.transactions;
      await agent.invoke(null, {
        threadId,
        responses: { [id]: { type: 'approve' } },
        reviewer: sup,
        app: { channel: 'chat' },
      });
      assert.equal(
        store.stats.transactions - before,
        4,
        'decision; claim with the checkpoint; outcome; final checkpoint',
      );
      assert.equal(pay.count('refund'), 1);
      assert.equal((await il.getRequestOrThrow(id)).status, 'executed');
    });

    it('gives back a claim its run did not use: the request is authorized again, and nothing ran', async () => {
      const pay = new FakePayments();
      const threadId = tid();
      const paused = await agentWith(supportTools(pay)).invoke('refund $850', { threadId });
      const id = paused.interrupts[0]!.id;
      const key = idempotencyKey(id, (await il.getRequestOrThrow(id)).actionHash);
      // A build deployed meanwhile whose refund takes another argument: the approved call no longer
      // validates, so the run answers the model with the error instead of running it.
      const stricter = tool({
        name: 'issue_refund',
        description: 'Refund an order',
        schema: z.object({ orderId: z.string(), customerId: z.string(), amount: z.number(), reason: z.string() }),
        execute: async (args, { idempotencyKey: k }) => pay.apply('refund', args, k),
      });
      const end = await agentWith(withRefund(pay, stricter)).invoke(null, {
        threadId,
        responses: { [id]: { type: 'approve' } },
        reviewer: sup,
      });
      assert.equal(end.stopReason, 'end_turn');
      assert.match(end.text, /Invalid arguments/);
      assert.equal(pay.calls, 0);
      assert.equal((await il.getRequestOrThrow(id)).status, 'authorized', 'no claim holds it: not executing');
      assert.equal(await store.getExecution(key), undefined, 'the claim is gone, as if never taken');
      assert.equal((await store.getThread(threadId))?.status, 'completed');
      assert.equal((await il.verifyAudit()).ok, true);
    });

    it("claims only for the batch's first call not done: a later call claims when the run reaches it", async () => {
      const pay = new FakePayments();
      const threadId = tid();
      let cancelKey = '';
      const during: Array<string | undefined> = [];
      const refund = tool({
        name: 'issue_refund',
        description: 'Refund an order',
        schema: z.object({ orderId: z.string(), customerId: z.string(), amount: z.number().positive() }),
        execute: async (args, { idempotencyKey: k }) => {
          // While the first call runs, nothing holds the second call's key yet.
          during.push((await store.getExecution(cancelKey))?.status);
          return pay.apply('refund', args, k);
        },
      });
      const agent = agentWith(withRefund(pay, refund));
      const paused = await agent.invoke('refund $850 and cancel my subscription', { threadId });
      const [r, c] = paused.interrupts;
      assert.equal(paused.interrupts.length, 2);
      cancelKey = idempotencyKey(c!.id, (await il.getRequestOrThrow(c!.id)).actionHash);
      const both: Reviewer = { id: 'robin', roles: ['supervisor', 'retention_lead'] };
      const end = await agent.invoke(null, {
        threadId,
        // The last answer (the one whose transaction takes the lease) is the second call's.
        responses: { [r!.id]: { type: 'approve' }, [c!.id]: { type: 'approve' } },
        reviewer: both,
      });
      assert.equal(end.stopReason, 'end_turn');
      assert.deepEqual(during, [undefined]);
      assert.equal(pay.count('refund'), 1);
      assert.equal(pay.count('cancel'), 1);
      assert.equal((await store.getExecution(cancelKey))?.attempts, 1);
    });

    it("runs under a claim taken with the decision only as the decision's own, once, while its lease stands", async () => {
      const threadId = tid();
      const paused = await agentWith(supportTools(new FakePayments())).invoke('refund $850', { threadId });
      const id = paused.interrupts[0]!.id;
      const d = await approveClaiming(id, threadId, 1_000);
      const pre = d.execution!;
      const input = { key: pre.key, tool: 'issue_refund', args: d.request.args, threadId, requestId: id };
      let runs = 0;
      // This process stalls past the claim's lease; another takes the claim over and runs the refund.
      clock.advance(2_000);
      const other = createInterlock({ store, policy: supportPolicy, now: clock.now, owner: 'other-process' });
      const theirs = await other.executeOnce(input, async () => ({ id: 'refund_1', by: 'other' }));
      assert.equal(theirs.status, 'succeeded');
      // Back, its claim has lapsed: it claims as usual, the ledger answers, the refund does not run again.
      const ours = await il.executeOnce(input, async () => ++runs, { claimed: pre });
      assert.equal(runs, 0);
      assert.deepEqual(ours, {
        status: 'succeeded',
        result: { id: 'refund_1', by: 'other' },
        replayed: true,
        key: pre.key,
      });

      // A note of a claim nobody took (a pending request's key) claims as usual, and is refused for it.
      const t2 = tid();
      const p2 = await agentWith(supportTools(new FakePayments())).invoke('refund $850', { threadId: t2 });
      const pending = await il.getRequestOrThrow(p2.interrupts[0]!.id);
      const forged = {
        key: idempotencyKey(pending.id, pending.actionHash),
        requestId: pending.id,
        actionHash: pending.actionHash,
        owner: pre.owner,
        leaseUntil: clock.now() + 60_000,
      };
      await assert.rejects(
        il.executeOnce(
          { ...input, key: forged.key, threadId: t2, requestId: pending.id, args: pending.args },
          async () => ++runs,
          { claimed: forged },
        ),
        (err) => err instanceof InterlockError && err.code === 'not_authorized',
      );
      assert.equal(runs, 0);
      assert.equal(await store.getExecution(forged.key), undefined);
    });

    it('writes only what the engine kept: a caller that changes the returned request or the claim object changes nothing', async () => {
      const threadId = tid();
      const paused = await agentWith(supportTools(new FakePayments())).invoke('refund $850', { threadId });
      const id = paused.interrupts[0]!.id;
      const d = await approveClaiming(id, threadId, 60_000);
      const pre = d.execution!;
      const args = structuredClone(d.request.args);
      // The caller redacts the request it got back (for a log), and rewrites the claim object to name
      // another, pending request nobody approved.
      d.request.args.customerId = '[redacted]';
      d.request.approvalsReceived = 0;
      const t2 = tid();
      const p2 = await agentWith(supportTools(new FakePayments())).invoke('refund $850', { threadId: t2 });
      const other = await il.getRequestOrThrow(p2.interrupts[0]!.id);
      Object.assign(pre, { request: { ...other, status: 'executing' } });
      const out = await il.executeOnce(
        { key: pre.key, tool: 'issue_refund', args, threadId, requestId: id },
        async () => ({ id: 'refund_1' }),
        { claimed: pre },
      );
      assert.equal(out.status, 'succeeded');
      const stored = await il.getRequestOrThrow(id);
      assert.equal(stored.status, 'executed');
      assert.deepEqual(stored.args, args, 'the stored args are as approved');
      assert.equal(stored.approvalsReceived, 1);
      assert.equal((await il.getRequestOrThrow(other.id)).status, 'pending', 'the other request did not move');
      assert.equal((await il.verifyAudit()).ok, true);
    });

    it("gives a claim back only while it is its taker's first attempt, and the call then runs once", async () => {
      const pay = new FakePayments();
      const threadId = tid();
      const paused = await agentWith(supportTools(pay)).invoke('refund $850', { threadId });
      const id = paused.interrupts[0]!.id;
      const d = await approveClaiming(id, threadId, 60_000);
      const pre = d.execution!;
      assert.equal(d.request.status, 'executing');
      assert.equal((await store.getExecution(pre.key))?.status, 'running');

      // Given back: authorized again, the key free, as if never claimed. Twice is a no-op.
      assert.equal(await il.releaseClaim(pre), true);
      assert.equal((await il.getRequestOrThrow(id)).status, 'authorized');
      assert.equal(await store.getExecution(pre.key), undefined);
      assert.equal(await il.releaseClaim(pre), false);

      // Claimed again, its lease lapses, and another process takes it over: the claim is not ours to give.
      await store.releaseThread(threadId, 'run-a', clock.now());
      const input = { key: pre.key, tool: 'issue_refund', args: d.request.args, threadId, requestId: id };
      clock.advance(1);
      const held = await store.claimExecution(
        {
          ...input,
          actionHash: pre.actionHash,
          leaseOwner: pre.owner,
          leaseUntil: clock.now() + 1_000,
          createdAt: clock.now(),
        },
        clock.now(),
      );
      assert.equal(held.claimed, true);
      clock.advance(2_000);
      const other = createInterlock({ store, policy: supportPolicy, now: clock.now, owner: 'other-process' });
      const out = await other.executeOnce(input, ({ idempotencyKey: k }) =>
        Promise.resolve(pay.apply('refund', d.request.args, k)),
      );
      assert.equal(out.status, 'succeeded');
      assert.equal(await il.releaseClaim(pre), false, 'taken over and finished: nothing to give back');
      assert.equal((await il.getRequestOrThrow(id)).status, 'executed');
      assert.equal(pay.count('refund'), 1);
    });
  });
}
