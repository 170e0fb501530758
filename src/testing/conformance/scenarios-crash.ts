import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createInterlock } from '../../engine/index.ts';
import { DEATH_LEASE_MS } from './context.ts';
import { CONFORMANCE_POLICY, REVIEWERS } from './world.ts';
import type { SuiteContext } from './context.ts';

/** Another process resumes; a crash after an auto call; a process that dies around the effect of an approved call. */
export function crashScenarios(c: SuiteContext): void {
  const { thread, threadsOf, effectsOf, amounts, decide, onlyRequest, driver, backend } = c;

  it('resume in another engine on the same database runs the approved call once', async () => {
    const t = thread();
    const req = await onlyRequest(await c.agent.invoke(`refund ${t} 850`, { threadId: t }));
    await decide(req, { type: 'approve' }, REVIEWERS.supervisor);
    const otherStore = await backend.create();
    const other = createInterlock({ store: otherStore, policy: CONFORMANCE_POLICY });
    const elsewhere = threadsOf(await driver.create(c.worldOf(other, otherStore)));
    assert.equal((await elsewhere.resume(t)).stopReason, 'end_turn');
    await c.agent.resume(t);
    assert.deepEqual(amounts(t), [850]);
  });

  it('a crash after an auto call ran, before the run was saved: the retry of the turn does not run it again', async () => {
    const t = thread();
    const text = `refund ${t} 120`;
    c.world.crashAfterTools();
    await assert.rejects(c.agent.invoke(text, { threadId: t }), /process died/);
    assert.deepEqual(amounts(t), [120]);
    // The model gives each call a fresh id, as providers do: the key must not come from it.
    const r = driver.retry === 'resume' ? await c.agent.resume(t) : await c.agent.invoke(text, { threadId: t });
    assert.equal(r.stopReason, 'end_turn');
    assert.match(r.text, /Done/, 'the retry finished the turn: the model answered after the tool');
    assert.deepEqual(amounts(t), [120], 'the retry paid again');
  });

  for (const when of ['before-effect', 'after-effect'] as const)
    it(`a process dies ${when === 'before-effect' ? 'after the claim, before the effect' : 'after the effect, before the outcome'}: another process runs the approved call under the same key`, async () => {
      // Process A: its own engine and database connection, with a short lease.
      const storeA = await backend.create();
      const worldA = c.worldOf(
        createInterlock({ store: storeA, policy: CONFORMANCE_POLICY, leaseMs: DEATH_LEASE_MS }),
        storeA,
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
      let r = await c.agent.resume(t);
      for (let i = 0; i < 20 && r.stopReason === 'busy'; i++) {
        await new Promise((res) => setTimeout(res, DEATH_LEASE_MS / 2));
        r = await c.agent.resume(t);
      }
      assert.equal(r.stopReason, 'end_turn');
      const keys = effectsOf(t).map((e) => e.key);
      assert.ok(keys.length >= 1 && keys.every((k) => k && k === keys[0]), `one key for every try: ${keys.join(', ')}`);
      if (when === 'before-effect') assert.equal(keys.length, 1, 'the effect ran once');
      assert.equal((await c.il.getRequestOrThrow(req.id)).status, 'executed');
    });
}
