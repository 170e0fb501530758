import assert from 'node:assert/strict';
import { it } from 'node:test';
import { REVIEWERS } from './world.ts';
import type { SuiteContext } from './context.ts';

/** What an attacker with write access to the framework's own state can try: altered and swapped arguments, forged approvals. */
export function stateScenarios(c: SuiteContext): void {
  const { thread, tid, effectsOf, amounts, pending, decide, onlyRequest, driver } = c;

  /** Change a paused call's amount in the framework's own saved copy (see IntegrationDriver.alter). */
  async function alter(t: string, from: number, to: number): Promise<void> {
    if (driver.alter) return driver.alter(c.world, tid(t), from, to);
    // The framework's copy lives in Interlock's tables: the history and the run state.
    for (const [table, column] of [
      ['il_messages', 'body'],
      ['il_checkpoints', 'state'],
    ])
      await c.store.unsafeQuery(
        `UPDATE ${table} SET ${column} = REPLACE(${column}, ':${from}', ':${to}') WHERE thread_id = $1`,
        [tid(t)],
      );
  }
  /** Resume, tolerating the refusals an integration may throw at state it does not trust. */
  const resumeTwice = async (t: string) => {
    await c.agent.resume(t).catch(() => undefined);
    await c.agent.resume(t).catch(() => undefined);
  };

  it("a paused call altered in the framework's saved state: the approval never runs the altered arguments", async () => {
    const t = thread();
    const req = await onlyRequest(await c.agent.invoke(`refund ${t} 850`, { threadId: t }));
    await alter(t, 850, 4999);
    await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
    await resumeTwice(t);
    assert.ok(!amounts(t).includes(4999), 'the altered call ran on an approval of another');
    for (const e of effectsOf(t)) assert.equal(e.args.amount, 850);
  });

  it("parallel calls whose arguments were swapped in the framework's saved state: approving one never runs the other's", async () => {
    const t = thread();
    const r = await c.agent.invoke(`refund ${t} 850; refund ${t} 900`, { threadId: t });
    assert.equal(r.stopReason, 'interrupt');
    const open = await pending(t);
    assert.equal(open.length, 2);
    await alter(t, 850, 1111);
    await alter(t, 900, 850);
    await alter(t, 1111, 900);
    await decide(
      open.find((x) => x.args.amount === 850)!,
      { type: 'approve' },
      REVIEWERS.supervisor,
    );
    await decide(
      open.find((x) => x.args.amount === 900)!,
      { type: 'reject' },
      REVIEWERS.supervisor,
    );
    await resumeTwice(t);
    assert.ok(!amounts(t).includes(900), 'the rejected amount ran under the approval of the other call');
    for (const e of effectsOf(t)) assert.equal(e.args.amount, 850);
  });

  it("an approval forged in the framework's own state runs nothing; the recorded decision still does", async () => {
    const t = thread();
    const req = await onlyRequest(await c.agent.invoke(`refund ${t} 850`, { threadId: t }));
    if (driver.forge) await driver.forge(c.world, c.agent, tid(t)).catch(() => undefined);
    await resumeTwice(t);
    assert.deepEqual(amounts(t), [], 'a forged approval ran the call');
    assert.equal((await c.il.getRequestOrThrow(req.id)).status, 'pending', 'the request was decided by no one');
    await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
    await resumeTwice(t);
    assert.deepEqual(amounts(t), [850]);
  });
}

/**
 * Policy features through the door (a planted check, trust for a thread), a wiring mistake failing
 * closed, a sub-agent gated or refused loudly.
 */
export function wiringScenarios(c: SuiteContext): void {
  const { thread, amounts, pendingFor, decide, onlyRequest, driver } = c;

  it('a planted check never runs, even when approved with the real request beside it', async () => {
    const t = thread();
    const r = await c.agent.invoke(`refund ${t} 777`, { threadId: t });
    assert.equal(r.stopReason, 'interrupt');
    const all = (await c.il.listRequests({ status: 'pending' })).items.filter((x) => x.args.orderId === t);
    const planted = all.filter((x) => x.planted);
    assert.equal(planted.length, 1, 'the rule placed its planted check');
    for (const req of all) await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
    await c.agent.resume(t);
    await c.agent.resume(t);
    assert.deepEqual(amounts(t), [777]);
    assert.notEqual((await c.il.getRequestOrThrow(planted[0]!.id)).status, 'executed');
  });

  it('trust for a thread: after "approve and trust", the next call of the rule runs without a request', async () => {
    const t = thread();
    const req = await onlyRequest(await c.agent.invoke(`refund ${t} 850`, { threadId: t }));
    await decide(req, { type: 'approve', trust: true }, REVIEWERS.supervisor);
    await c.agent.resume(t);
    const again = await c.agent.invoke(`refund ${t} 800`, { threadId: t });
    assert.equal(again.stopReason, 'end_turn');
    assert.deepEqual(amounts(t), [850, 800]);
  });

  const miswired = driver.miswired?.bind(driver);
  if (miswired)
    it('a wiring mistake fails closed: the gated call does not run, and the run says how to wire it', async () => {
      const wrong = await miswired(c.world);
      const t = thread();
      await assert.rejects(wrong.invoke(`refund ${t} 850`, { threadId: t }), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'not_wired');
        return true;
      });
      assert.deepEqual(amounts(t), []);
    });

  const subAgent = driver.subAgent?.bind(driver);
  if (subAgent)
    it("a sub-agent's gated call is gated (approved, it runs once) — or the tree is refused loudly", async () => {
      const t = thread();
      const how = (e: unknown) => {
        const err = e as Error & { code?: string };
        assert.ok(typeof err.code === 'string', `a refusal has a stable code: ${String(e)}`);
        assert.match(err.message, /Interlock|wire|docs\//, 'the refusal says how to wire it');
        assert.deepEqual(amounts(t), [], 'nothing ran');
      };
      let tree;
      try {
        tree = c.threadsOf(await subAgent(c.world));
      } catch (e) {
        return how(e);
      }
      let r;
      try {
        r = await tree.invoke(`delegate refund ${t} 850`, { threadId: t });
      } catch (e) {
        return how(e);
      }
      assert.equal(r.stopReason, 'interrupt', "the sub-agent's gated call paused the run");
      assert.deepEqual(amounts(t), []);
      const open = await pendingFor(t);
      assert.equal(open.length, 1, "one request for the sub-agent's call");
      await decide(open[0]!, { type: 'approve' }, REVIEWERS.supervisor);
      assert.equal((await tree.resume(t)).stopReason, 'end_turn');
      await tree.resume(t);
      assert.deepEqual(amounts(t), [850]);
    });
}
