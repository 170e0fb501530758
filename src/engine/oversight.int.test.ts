import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { createAgent, tool, type Agent } from '../agent/index.ts';
import { InterlockError, type PolicyConfig, type Reviewer } from '../core/index.ts';
import { requestSummary } from '../server/views.ts';
import { createMetrics } from '../server/metrics.ts';
import type { Store } from '../store/types.ts';
import { createInterlock, type Interlock } from './index.ts';

const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };
const rita: Reviewer = { id: 'rita', roles: ['supervisor'] };

/** Refunds: auto up to $100, notify up to $500, a supervisor above; planted checks when `plant` is set. */
function refundPolicy(plant?: { rate: number; onTimeout?: 'approve' | 'abort' }): PolicyConfig {
  return {
    tools: {
      issue_refund: [
        { id: 'small', tier: 'auto', reason: 'small refund' },
        {
          id: 'medium',
          tier: 'notify',
          role: 'supervisor',
          reason: 'medium refund',
          when: ({ args }) => Number(args.amount) > 100,
        },
        {
          id: 'large',
          tier: 'approve',
          role: 'supervisor',
          timeout: '30m',
          reason: 'refund over $500',
          when: ({ args }) => Number(args.amount) > 500,
          ...(plant?.onTimeout ? { onTimeout: plant.onTimeout } : {}),
          ...(plant
            ? {
                plant: {
                  rate: plant.rate,
                  // A refund to an account that does not exist: a careful reviewer rejects it.
                  template: ({ args }: { args: Record<string, unknown> }) => ({
                    args: { ...args, orderId: 'ORD-000000', amount: Number(args.amount) * 3 },
                    evidence: { customerMessage: 'Refund my order please' },
                  }),
                },
              }
            : {}),
        },
      ],
    },
  };
}

for (const backend of allBackends()) {
  describe(`oversight figures on ${backend.name}`, () => {
    let store: Store;
    const clock = manualClock();
    let n = 0;
    const tid = () => `ov-${backend.name}-${++n}`;
    const refunds: number[] = [];

    before(async () => {
      store = await backend.create();
    });
    after(() => backend.destroy());

    function agentOn(il: Interlock): Agent {
      const refund = tool({
        name: 'issue_refund',
        description: 'Refund an order',
        schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
        execute: async ({ amount }) => (refunds.push(amount), { refunded: amount }),
      });
      return createAgent({
        name: 'support',
        version: '1.0.0',
        model: scriptedModel(
          (ctx) =>
            ctx.lastToolResults.length
              ? { text: 'done' }
              : {
                  toolCalls: [
                    {
                      name: 'issue_refund',
                      args: { orderId: 'ORD-1', amount: Number(/\$(\d+)/.exec(ctx.lastUserText)![1]) },
                    },
                  ],
                },
          { recordPrompts: false },
        ),
        system: 'refunds',
        tools: [refund],
        interlock: il,
      });
    }
    async function decide(il: Interlock, id: string, d: Record<string, unknown>, who = sam) {
      const r = await il.getRequestOrThrow(id);
      return il.decide(
        id,
        { ...d, expectedVersion: r.version, actionHash: r.actionHash } as Parameters<Interlock['decide']>[1],
        who,
      );
    }

    it('interrupt rate, per-tier figures, autonomous completion and queue flow from a scripted history', async () => {
      const il = createInterlock({ store, policy: refundPolicy(), now: clock.now });
      const agent = agentOn(il);
      clock.advance(86_400_000);
      const since = clock.now();
      const run = async (amount: number) => {
        const threadId = tid();
        const r = await agent.invoke(`refund $${amount}`, { threadId });
        clock.advance(60_000);
        return { threadId, id: r.interrupts[0]?.id };
      };
      await run(50); // auto, completes alone
      await run(200); // notify, completes alone
      const approved = await run(900);
      const rejected = await run(800);
      const edited = await run(700);
      await run(950); // stays pending
      await decide(il, approved.id!, { type: 'approve' });
      await decide(il, rejected.id!, { type: 'reject', message: 'no' });
      await decide(il, edited.id!, { type: 'edit', args: { orderId: 'ORD-1', amount: 600 } });
      for (const t of [approved, rejected, edited]) await agent.resume(t.threadId);
      clock.advance(60_000);
      const r = await il.rollup(since, clock.now());

      const refund = r.tools.find((t) => t.tool === 'issue_refund')!;
      assert.equal(refund.calls, 6, 'two ran alone, four paused');
      assert.equal(refund.interruptRate, 4 / 6);
      assert.equal(refund.requests, 4);
      const tiers = Object.fromEntries(r.tiers.map((t) => [t.tier, t]));
      assert.deepEqual(Object.keys(tiers), ['auto', 'notify', 'approve']);
      assert.equal(tiers.auto!.calls, 1);
      assert.equal(tiers.auto!.interruptRate, 0);
      assert.equal(tiers.notify!.calls, 1);
      assert.equal(tiers.approve!.calls, 4);
      assert.equal(tiers.approve!.interruptRate, 1);
      assert.equal(tiers.approve!.approvalRate, 2 / 3);
      assert.equal(tiers.approve!.correctionRate, 1 / 3);
      assert.equal(tiers.approve!.pending, 1);
      assert.deepEqual(r.threads, { finished: 5, autonomous: 2, autonomousRate: 0.4 });
      const flows = r.queue.flows.filter((f) => f.role === 'supervisor');
      assert.equal(r.queue.intervalMs, 3_600_000);
      assert.deepEqual([flows.reduce((a, f) => a + f.opened, 0), flows.reduce((a, f) => a + f.resolved, 0)], [4, 3]);
      assert.equal(r.oversight, undefined, 'planted checks and pace are for operators only');
    });

    it('planted checks: placed at the rate, indistinguishable in the queue, never executable, counted apart', async () => {
      // Draws: 0.1 plants (rate 0.5), 0.9 does not, 0.2 plants.
      const draws = [0.1, 0.9, 0.2];
      const il = createInterlock({
        store,
        policy: refundPolicy({ rate: 0.5 }),
        now: clock.now,
        random: () => draws.shift() ?? 1,
      });
      const agent = agentOn(il);
      clock.advance(86_400_000);
      const since = clock.now();
      const threads = [tid(), tid(), tid()];
      for (const t of threads) await agent.invoke('refund $900', { threadId: t });
      const planted = (await store.listRequests({ planted: true, limit: 50 })).items.filter(
        (r) => r.createdAt >= since,
      );
      assert.equal(planted.length, 2, 'two of three draws under the rate');
      const real = (await store.listRequests({ threadId: threads[0], planted: false })).items[0]!;
      const check = planted.find((p) => p.threadId === threads[0])!;
      // The queue and the card show the same fields, with the same kinds of values.
      assert.deepEqual(Object.keys(requestSummary(check)).sort(), Object.keys(requestSummary(real)).sort());
      assert.equal(check.tool, real.tool);
      assert.equal(check.tier, real.tier);
      assert.equal(check.role, real.role);
      assert.equal(check.expiresAt - check.createdAt, real.expiresAt - real.createdAt);
      assert.match(check.toolCallId!, /^call_/);
      assert.deepEqual(check.args, { orderId: 'ORD-000000', amount: 2700 });
      const queue = (await il.listRequests({ status: 'pending', roles: ['supervisor'], limit: 100 })).items;
      assert.ok(
        queue.some((q) => q.id === check.id),
        'it waits in the supervisors’ queue',
      );
      // Marked for operators in the audit log.
      const marks = (await store.listAudit({ requestId: check.id })).map((e) => e.type);
      assert.ok(marks.includes('planted') && marks.includes('interrupted'));

      // Approving it records the miss, and nothing can run it.
      const d = await decide(il, check.id, { type: 'approve', trust: true });
      assert.deepEqual(d.plantedCheck, { caught: false });
      assert.equal(
        await store.getTrust(check.threadId, check.tool, check.ruleId),
        undefined,
        'trust on a check grants nothing',
      );
      assert.equal((await il.requestOutcome(check.id)).state, 'cancelled');
      assert.notEqual((await il.callOutcome(check.threadId, check.toolCallId!))?.request.id, check.id);
      await assert.rejects(
        il.executeOnce(
          {
            key: `${check.id}:${check.actionHash}`,
            tool: check.tool,
            args: check.args,
            requestId: check.id,
            threadId: check.threadId,
          },
          async () => 'ran',
        ),
        (e: unknown) => e instanceof InterlockError && e.code === 'planted_check',
      );
      assert.equal((await store.listJobs({ requestId: check.id, kind: 'resume' })).length, 0, 'no thread waits on it');
      // The real request of the thread still waits, and its approval runs it once.
      assert.equal((await il.getRequestOrThrow(real.id)).status, 'pending');
      const before = refunds.length;
      await decide(il, real.id, { type: 'approve' });
      await agent.resume(threads[0]!);
      assert.deepEqual(refunds.slice(before), [900]);

      // The other check: an edit is recorded as a miss too and still never runs; a reject is a catch.
      const other = planted.find((p) => p.threadId !== threads[0])!;
      await il.cardOpened(other.id, 'rita');
      clock.advance(4_000);
      const e = await decide(il, other.id, { type: 'edit', args: { orderId: 'ORD-1', amount: 600 } }, rita);
      assert.deepEqual(e.plantedCheck, { caught: false });
      assert.equal((await il.requestOutcome(other.id)).state, 'cancelled');

      clock.advance(60_000);
      const r = await il.rollup(since, clock.now(), { oversight: true });
      // Left out of every other figure.
      assert.equal(r.tools.find((t) => t.tool === 'issue_refund')?.requests, 3);
      assert.equal(r.tiers.find((t) => t.tier === 'approve')?.calls, 3);
      const o = r.oversight!.planted;
      assert.equal(o.placed, 2);
      assert.equal(o.decided, 2);
      assert.equal(o.caught, 0);
      assert.deepEqual(
        o.byReviewer.map((x) => [x.key, x.missed]),
        [
          ['rita', 1],
          ['sam', 1],
        ],
      );
      assert.deepEqual(
        o.byRule.map((x) => x.key),
        ['issue_refund:large'],
      );
    });

    it("each reviewer's pace: seconds from opening a card to approving, and the share under the threshold", async () => {
      const il = createInterlock({ store, policy: refundPolicy(), now: clock.now });
      const agent = agentOn(il);
      clock.advance(86_400_000);
      const since = clock.now();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await agent.invoke('refund $900', { threadId: tid() })).interrupts[0]!.id);
      await il.cardOpened(ids[0]!, 'sam');
      clock.advance(3_000);
      await decide(il, ids[0]!, { type: 'approve' });
      await il.cardOpened(ids[1]!, 'sam');
      clock.advance(40_000);
      await il.cardOpened(ids[1]!, 'sam'); // a second look does not restart the clock
      await decide(il, ids[1]!, { type: 'approve' });
      await decide(il, ids[2]!, { type: 'approve' }, rita); // from the CLI or API: never opened
      clock.advance(1_000);
      const pace = (await il.rollup(since, clock.now(), { oversight: true })).oversight!.reviewers;
      assert.deepEqual(pace, [
        { reviewer: 'sam', approvals: 2, timed: 2, medianSecondsToApprove: 21.5, fastShare: 0.5, fastSeconds: 10 },
        { reviewer: 'rita', approvals: 1, timed: 0, medianSecondsToApprove: null, fastShare: null, fastSeconds: 10 },
      ]);
    });

    it('Prometheus: every gated call by tool and tier, opened and resolved by role; planted checks counted like any request (a series without them would give their number away)', async () => {
      const il = createInterlock({ store, policy: refundPolicy({ rate: 1 }), now: clock.now, random: () => 0 });
      const metrics = createMetrics(il);
      try {
        const agent = agentOn(il);
        await agent.invoke('refund $40', { threadId: tid() });
        const paused = await agent.invoke('refund $900', { threadId: tid() });
        await decide(il, paused.interrupts[0]!.id, { type: 'approve' });
        const text = await metrics.render();
        const sample = (re: RegExp) => Number(re.exec(text)?.[1]);
        assert.equal(sample(/^interlock_tool_calls_total\{tool="issue_refund",tier="auto"\} (\d+)$/m), 1);
        assert.equal(sample(/^interlock_tool_calls_total\{tool="issue_refund",tier="approve"\} (\d+)$/m), 2);
        assert.equal(
          sample(/^interlock_requests_opened_total\{role="supervisor"\} (\d+)$/m),
          2,
          'the planted one is counted like the real one',
        );
        assert.equal(sample(/^interlock_requests_resolved_total\{role="supervisor"\} (\d+)$/m), 1);
        assert.equal(sample(/^interlock_interrupts_total\{tool="issue_refund",tier="approve"\} (\d+)$/m), 2);
        assert.equal(sample(/^interlock_queue_depth\{role="supervisor"\} (\d+)$/m) >= 0, true);
      } finally {
        metrics.dispose();
      }
    });
  });
}
