import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApprovalRequest, Reviewer } from '../../core/index.ts';
import { createInterlock, type Interlock, type RunnerResult, type ThreadRunner } from '../../engine/index.ts';
import type { Store } from '../../store/types.ts';
import { allBackends, type BackendInitializer } from '../backends.ts';
import {
  CONFORMANCE_POLICY,
  REVIEWERS,
  conformanceWorld,
  type ConformanceEffect,
  type ConformanceWorld,
  type IntegrationDriver,
} from './world.ts';

/** Options of {@link integrationConformance}. */
export interface ConformanceOptions {
  /** The databases to run on (default: SQLite and PostgreSQL, {@link allBackends}). */
  backends?: BackendInitializer[];
}

/** The lease of a process the suite kills: short, so the survivor takes over soon. */
const DEATH_LEASE_MS = 400;

type DecisionInput =
  | { type: 'approve'; trust?: boolean }
  | { type: 'reject'; message?: string }
  | { type: 'respond'; message: string }
  | { type: 'edit'; args: Record<string, unknown> };

/**
 * The integration conformance suite: the same scenarios — the four verbs, an edit that raises the
 * tier, block, a quorum, two calls under one id, parallel calls settled independently, resume in
 * another engine, trust, a wiring mistake — against one integration, on each database. Register it
 * in a test file; every scenario is a `node:test` test.
 *
 * @example
 * import { integrationConformance } from 'interlock-approvals/testing';
 * integrationConformance({ name: 'my-framework', create: (world) => createMyAgent(world) });
 */
export function integrationConformance(driver: IntegrationDriver, opts: ConformanceOptions = {}): void {
  for (const backend of opts.backends ?? allBackends()) {
    describe(`conformance: ${driver.name} on ${backend.name}`, () => {
      let store: Store;
      let il: Interlock;
      let agent: ThreadRunner;
      let world: ConformanceWorld;
      const effects: ConformanceEffect[] = [];
      const shared = new Map<string, unknown>();
      let n = 0;
      const thread = () => `cf-${driver.name}-${backend.name}-${++n}`;

      before(async () => {
        store = await backend.create();
        il = createInterlock({ store, policy: CONFORMANCE_POLICY });
        world = conformanceWorld(il, effects, shared);
        agent = threadsOf(await driver.create(world));
      });
      after(() => backend.destroy());

      // An integration may keep its own thread ids (the MCP gateway's are per principal): the suite
      // names a conversation and follows the thread the runner reports for it.
      const ids = new Map<string, string>();
      const tid = (t: string) => ids.get(t) ?? t;
      function threadsOf(runner: ThreadRunner): ThreadRunner {
        return {
          ...runner,
          name: runner.name,
          version: runner.version,
          async invoke(input, o) {
            const r = await runner.invoke(input, o);
            if (o?.threadId) ids.set(o.threadId, r.threadId);
            return r;
          },
          resume: (t) => runner.resume(tid(t)),
          abort: (t, by) => runner.abort(tid(t), by),
        };
      }
      const effectsOf = (orderId: string) => effects.filter((e) => e.args.orderId === orderId);
      const amounts = (orderId: string) => effectsOf(orderId).map((e) => e.args.amount);
      const pending = async (threadId: string) =>
        (await il.listRequests({ threadId: tid(threadId), status: 'pending' })).items.filter((r) => !r.planted);
      async function decide(req: ApprovalRequest, d: DecisionInput, who: Reviewer) {
        const fresh = await il.getRequestOrThrow(req.id);
        return il.decide(req.id, { ...d, expectedVersion: fresh.version, actionHash: fresh.actionHash }, who);
      }
      async function onlyRequest(r: RunnerResult): Promise<ApprovalRequest> {
        assert.equal(r.stopReason, 'interrupt', `expected a pause, got ${r.stopReason}`);
        const open = await pending(r.threadId);
        assert.equal(open.length, 1, 'one request for the one gated call');
        return open[0]!;
      }

      it('auto: a small refund runs once, keyed, with no request', async () => {
        const t = thread();
        const r = await agent.invoke(`refund ${t} 120`, { threadId: t });
        assert.equal(r.stopReason, 'end_turn');
        assert.deepEqual(amounts(t), [120]);
        assert.ok(effectsOf(t)[0]!.key, 'the tool got an idempotency key');
        assert.deepEqual(await pending(t), []);
      });

      it('approve: the approved call runs once, after the decision, with its arguments', async () => {
        const t = thread();
        const r = await agent.invoke(`refund ${t} 850`, { threadId: t });
        const req = await onlyRequest(r);
        assert.deepEqual(req.args, { orderId: t, amount: 850 });
        assert.deepEqual(amounts(t), [], 'nothing runs before the decision');
        await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
        const done = await agent.resume(t);
        assert.equal(done.stopReason, 'end_turn');
        assert.deepEqual(amounts(t), [850]);
        await agent.resume(t);
        assert.deepEqual(amounts(t), [850], 'a second resume runs nothing again');
        assert.equal((await il.getRequestOrThrow(req.id)).status, 'executed');
      });

      it('reject: nothing runs and the thread goes on', async () => {
        const t = thread();
        const req = await onlyRequest(await agent.invoke(`refund ${t} 850`, { threadId: t }));
        await decide(req, { type: 'reject', message: 'order never paid' }, REVIEWERS.supervisor);
        const done = await agent.resume(t);
        assert.equal(done.stopReason, 'end_turn');
        assert.deepEqual(amounts(t), []);
      });

      it('respond: nothing runs; the answer stands in for the result', async () => {
        const t = thread();
        const req = await onlyRequest(await agent.invoke(`refund ${t} 850`, { threadId: t }));
        await decide(req, { type: 'respond', message: 'Offer store credit.' }, REVIEWERS.supervisor);
        assert.equal((await agent.resume(t)).stopReason, 'end_turn');
        assert.deepEqual(amounts(t), []);
      });

      it('edit: the edited arguments run once, not the proposed ones', async () => {
        const t = thread();
        const req = await onlyRequest(await agent.invoke(`refund ${t} 850`, { threadId: t }));
        await decide(req, { type: 'edit', args: { orderId: t, amount: 700 } }, REVIEWERS.supervisor);
        assert.equal((await agent.resume(t)).stopReason, 'end_turn');
        assert.deepEqual(amounts(t), [700]);
      });

      it('an edit that raises the tier: the new request decides, and the edited call runs once', async () => {
        const t = thread();
        const req = await onlyRequest(await agent.invoke(`refund ${t} 850`, { threadId: t }));
        const d = await decide(req, { type: 'edit', args: { orderId: t, amount: 1500 } }, REVIEWERS.supervisor);
        assert.equal(d.outcome, 'superseded');
        const waiting = await agent.resume(t);
        assert.equal(waiting.stopReason, 'interrupt', 'the manager has not decided yet');
        assert.deepEqual(amounts(t), []);
        const raised = await onlyRequest(waiting);
        assert.equal(raised.role, 'manager');
        await decide(raised, { type: 'approve' }, REVIEWERS.manager);
        assert.equal((await agent.resume(t)).stopReason, 'end_turn');
        assert.deepEqual(amounts(t), [1500]);
        assert.equal((await il.getRequestOrThrow(raised.id)).status, 'executed');
      });

      it('block: nothing runs, no request opens, the refusal is audited', async () => {
        const t = thread();
        const r = await agent.invoke(`refund ${t} 900000`, { threadId: t });
        assert.equal(r.stopReason, 'end_turn');
        assert.deepEqual(amounts(t), []);
        assert.deepEqual(await pending(t), []);
        assert.ok((await il.audit.listAudit({ threadId: tid(t) })).some((e) => e.type === 'refused'));
      });

      it('escalate with a quorum: one approval runs nothing, the second runs it once', async () => {
        const t = thread();
        const req = await onlyRequest(await agent.invoke(`refund ${t} 30000`, { threadId: t }));
        assert.equal(req.approvalsRequired, 2);
        await decide(req, { type: 'approve' }, REVIEWERS.director);
        assert.equal((await agent.resume(t)).stopReason, 'interrupt');
        assert.deepEqual(amounts(t), []);
        await decide(req, { type: 'approve' }, REVIEWERS.director2);
        assert.equal((await agent.resume(t)).stopReason, 'end_turn');
        assert.deepEqual(amounts(t), [30000]);
      });

      for (const first of [900_000, 30_000]) {
        it(`two calls under one id in one step ($${first}, then $600): one approval never runs the first`, async () => {
          const t = thread();
          let r: RunnerResult | undefined;
          try {
            r = await agent.invoke(`refund ${t} ${first} @dup; refund ${t} 600 @dup`, { threadId: t });
          } catch (e) {
            // A framework that refuses repeated ids itself: loud, and nothing ran.
            assert.ok(e instanceof Error);
          }
          // Whatever opened, one supervisor approves all of it (the bypass needed just that).
          for (const req of await pending(t))
            await decide(req, { type: 'approve' }, REVIEWERS.supervisor).catch(() => undefined);
          if (r) await agent.resume(t);
          assert.ok(!amounts(t).includes(first), `the $${first} call ran on one approval`);
          // Anything that did run ran as its own call, with its own request or verdict.
          for (const e of effectsOf(t)) assert.equal(e.args.amount, 600);
        });
      }

      it('parallel gated calls are settled independently: one approved, one rejected', async () => {
        const t = thread();
        const r = await agent.invoke(`refund ${t} 850; refund ${t} 900`, { threadId: t });
        assert.equal(r.stopReason, 'interrupt');
        const open = await pending(t);
        assert.equal(open.length, 2);
        const a = open.find((x) => x.args.amount === 850)!;
        const b = open.find((x) => x.args.amount === 900)!;
        await decide(a, { type: 'approve' }, REVIEWERS.supervisor);
        await decide(b, { type: 'reject' }, REVIEWERS.supervisor);
        assert.equal((await agent.resume(t)).stopReason, 'end_turn');
        assert.deepEqual(amounts(t), [850]);
      });

      it('an approved call does not wait for its still-pending sibling', async () => {
        const t = thread();
        const r = await agent.invoke(`refund ${t} 850; refund ${t} 900`, { threadId: t });
        const open = await pending(r.threadId);
        assert.equal(open.length, 2);
        const a = open.find((x) => x.args.amount === 850)!;
        const b = open.find((x) => x.args.amount === 900)!;
        await decide(a, { type: 'approve' }, REVIEWERS.supervisor);
        const mid = await agent.resume(t);
        assert.equal(mid.stopReason, 'interrupt', 'the other call still waits');
        assert.deepEqual(amounts(t), [850], 'the approved call ran without waiting');
        assert.deepEqual(
          mid.interrupts.map((i) => i.id),
          [b.id],
        );
        await decide(b, { type: 'reject' }, REVIEWERS.supervisor);
        assert.equal((await agent.resume(t)).stopReason, 'end_turn');
        assert.deepEqual(amounts(t), [850]);
      });

      it('an auto call beside a gated one runs now; the gated one after its approval, each once', async () => {
        const t = thread();
        const r = await agent.invoke(`refund ${t} 100; refund ${t} 850`, { threadId: t });
        const req = await onlyRequest(r);
        assert.deepEqual(amounts(t), [100]);
        await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
        await agent.resume(t);
        assert.deepEqual(amounts(t).sort(), [100, 850]);
      });

      it('resume in another engine on the same database runs the approved call once', async () => {
        const t = thread();
        const req = await onlyRequest(await agent.invoke(`refund ${t} 850`, { threadId: t }));
        await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
        const other = createInterlock({ store: await backend.create(), policy: CONFORMANCE_POLICY });
        const elsewhere = threadsOf(await driver.create(conformanceWorld(other, effects, shared)));
        assert.equal((await elsewhere.resume(t)).stopReason, 'end_turn');
        await agent.resume(t);
        assert.deepEqual(amounts(t), [850]);
      });

      it('a crash after an auto call ran, before the run was saved: the retry of the turn does not run it again', async () => {
        const t = thread();
        const text = `refund ${t} 120`;
        world.crashAfterTools();
        await assert.rejects(agent.invoke(text, { threadId: t }), /process died/);
        assert.deepEqual(amounts(t), [120]);
        // The model gives each call a fresh id, as providers do: the key must not come from it.
        const r = driver.retry === 'resume' ? await agent.resume(t) : await agent.invoke(text, { threadId: t });
        assert.equal(r.stopReason, 'end_turn');
        assert.match(r.text, /Done/, 'the retry finished the turn: the model answered after the tool');
        assert.deepEqual(amounts(t), [120], 'the retry paid again');
      });

      for (const when of ['before-effect', 'after-effect'] as const)
        it(`a process dies ${when === 'before-effect' ? 'after the claim, before the effect' : 'after the effect, before the outcome'}: another process runs the approved call under the same key`, async () => {
          // Process A: its own engine and database connection, with a short lease.
          const storeA = await backend.create();
          const worldA = conformanceWorld(
            createInterlock({ store: storeA, policy: CONFORMANCE_POLICY, leaseMs: DEATH_LEASE_MS }),
            effects,
            shared,
          );
          const agentA = threadsOf(await driver.create(worldA));
          const t = thread();
          const req = await onlyRequest(await agentA.invoke(`refund ${t} 850`, { threadId: t }));
          await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
          const entered = worldA.dieDuring(when);
          void agentA.resume(t).catch(() => undefined);
          await entered;
          // A is gone: its connection closed, nothing of it renews a lease or writes again.
          await storeA.close();
          await worldA.kill();
          await new Promise((r) => setTimeout(r, DEATH_LEASE_MS * 2));
          // This process resumes the thread once A's leases ran out.
          let r = await agent.resume(t);
          for (let i = 0; i < 20 && r.stopReason === 'busy'; i++) {
            await new Promise((res) => setTimeout(res, DEATH_LEASE_MS / 2));
            r = await agent.resume(t);
          }
          assert.equal(r.stopReason, 'end_turn');
          const keys = effectsOf(t).map((e) => e.key);
          assert.ok(
            keys.length >= 1 && keys.every((k) => k && k === keys[0]),
            `one key for every try: ${keys.join(', ')}`,
          );
          if (when === 'before-effect') assert.equal(keys.length, 1, 'the effect ran once');
          assert.equal((await il.getRequestOrThrow(req.id)).status, 'executed');
        });

      it('a planted check never runs, even when approved with the real request beside it', async () => {
        const t = thread();
        const r = await agent.invoke(`refund ${t} 777`, { threadId: t });
        assert.equal(r.stopReason, 'interrupt');
        const all = (await il.listRequests({ status: 'pending' })).items.filter((x) => x.args.orderId === t);
        const planted = all.filter((x) => x.planted);
        assert.equal(planted.length, 1, 'the rule placed its planted check');
        for (const req of all) await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
        await agent.resume(t);
        await agent.resume(t);
        assert.deepEqual(amounts(t), [777]);
        assert.notEqual((await il.getRequestOrThrow(planted[0]!.id)).status, 'executed');
      });

      it("a paused call altered in the framework's saved state: the approval never runs the altered arguments", async () => {
        const t = thread();
        const req = await onlyRequest(await agent.invoke(`refund ${t} 850`, { threadId: t }));
        if (driver.alter) await driver.alter(world, tid(t), 850, 4999);
        else {
          // The framework's copy lives in Interlock's tables: the history and the run state.
          await store.unsafeQuery(`UPDATE il_messages SET body = REPLACE(body, ':850', ':4999') WHERE thread_id = $1`, [
            tid(t),
          ]);
          await store.unsafeQuery(
            `UPDATE il_checkpoints SET state = REPLACE(state, ':850', ':4999') WHERE thread_id = $1`,
            [tid(t)],
          );
        }
        await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
        await agent.resume(t).catch(() => undefined);
        await agent.resume(t).catch(() => undefined);
        assert.ok(!amounts(t).includes(4999), 'the altered call ran on an approval of another');
        for (const e of effectsOf(t)) assert.equal(e.args.amount, 850);
      });

      it('trust for a thread: after "approve and trust", the next call of the rule runs without a request', async () => {
        const t = thread();
        const req = await onlyRequest(await agent.invoke(`refund ${t} 850`, { threadId: t }));
        await decide(req, { type: 'approve', trust: true }, REVIEWERS.supervisor);
        await agent.resume(t);
        const again = await agent.invoke(`refund ${t} 800`, { threadId: t });
        assert.equal(again.stopReason, 'end_turn');
        assert.deepEqual(amounts(t), [850, 800]);
      });

      const miswired = driver.miswired?.bind(driver);
      if (miswired)
        it('a wiring mistake fails closed: the gated call does not run, and the run says how to wire it', async () => {
          const wrong = await miswired(world);
          const t = thread();
          await assert.rejects(wrong.invoke(`refund ${t} 850`, { threadId: t }), (e: Error & { code?: string }) => {
            assert.equal(e.code, 'not_wired');
            return true;
          });
          assert.deepEqual(amounts(t), []);
        });
    });
  }
}
