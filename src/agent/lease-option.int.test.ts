/**
 * One lease setting (createInterlock's `leaseMs`, which the service takes from
 * INTERLOCK_LEASE_MS) governs a run's thread lease and its execution claim, not
 * only job leases: a run abandoned mid-tool is taken over after that lease.
 * Driven by injected clocks, so nothing depends on how fast the machine is.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { defineConfig, startService } from '../service/index.ts';
import type { PolicyConfig } from '../core/index.ts';
import type { Store } from '../store/types.ts';
import { createAgent, tool } from './index.ts';

const policy: PolicyConfig = { tools: { pay: [{ id: 'auto', tier: 'auto', reason: 'test payments run alone' }] } };
const LEASE = 500;

for (const backend of allBackends()) {
  describe(`leaseMs governs thread leases and execution claims on ${backend.name}`, () => {
    let store: Store;
    before(async () => {
      store = await backend.create();
    });
    after(() => backend.destroy());

    /** An agent whose one tool call is `execute`. */
    const agentOn = (il: Interlock, execute: (key: string) => Promise<unknown>) =>
      createAgent({
        name: 'payer',
        version: '1',
        model: scriptedModel((ctx) =>
          ctx.lastToolResults.length ? { text: 'paid' } : { toolCalls: [{ name: 'pay', args: { amount: 5 } }] },
        ),
        system: 's',
        tools: [
          tool({
            name: 'pay',
            description: 'pay',
            schema: z.object({ amount: z.number() }),
            execute: (_args, { idempotencyKey }) => execute(idempotencyKey),
          }),
        ],
        interlock: il,
      });

    it('a run abandoned mid-tool is taken over after leaseMs, with the same idempotency key', async () => {
      const t0 = Date.UTC(2026, 0, 5, 10, 0, 0);
      const clockA = manualClock(t0);
      const a = createInterlock({ store, policy, now: clockA.now, owner: 'process-a', leaseMs: LEASE });
      let entered!: (key: string) => void;
      const inTool = new Promise<string>((r) => (entered = r));
      let release!: () => void;
      const hung = new Promise<void>((r) => (release = r));
      const threadId = `lease-${backend.name}`;
      // Process A starts the run; its tool call never returns (the process is as good as dead).
      const runA = agentOn(a, async (key) => {
        entered(key);
        await hung;
        return { paid: 'by A' };
      }).invoke('pay', { threadId });
      const keyA = await inTool;

      const thread = await store.getThread(threadId);
      assert.equal(thread?.leaseOwner?.startsWith('process-a'), true);
      assert.equal(thread?.leaseUntil, t0 + LEASE, 'the thread lease is leaseMs long');
      const claim = await store.getExecution(keyA);
      assert.equal(claim?.status, 'running');
      assert.equal(claim?.leaseUntil, t0 + LEASE, 'the execution claim is leaseMs long');

      // Process B, just after the lease: it takes the thread and the claim over and finishes the run.
      const b = createInterlock({
        store,
        policy,
        now: manualClock(t0 + LEASE + 1).now,
        owner: 'process-b',
        leaseMs: LEASE,
      });
      const keysB: string[] = [];
      const r = await agentOn(b, async (key) => {
        keysB.push(key);
        return { paid: 'by B' };
      }).resume(threadId);
      assert.equal(r.stopReason, 'end_turn');
      assert.deepEqual(keysB, [keyA], 'the same idempotency key, so the payment API can dedupe');
      assert.equal((await store.getThread(threadId))?.status, 'completed');
      assert.equal((await store.getExecution(keyA))?.status, 'succeeded');

      release();
      await runA.catch(() => undefined);
      assert.equal(
        (await store.getExecution(keyA))?.result && JSON.stringify((await store.getExecution(keyA))?.result),
        JSON.stringify({ paid: 'by B' }),
        'A’s late outcome does not overwrite B’s',
      );
    });

    it('the service takes the lease from INTERLOCK_LEASE_MS for the engine, its agents and its worker', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'interlock-lease-'));
      const saved = process.env.INTERLOCK_LEASE_MS;
      process.env.INTERLOCK_LEASE_MS = String(LEASE);
      try {
        let seen: Interlock | undefined;
        const svc = await startService({
          config: defineConfig({
            policy,
            agents: ({ interlock }) => ((seen = interlock), [agentOn(interlock, async () => ({}))]),
          }),
          databaseUrl: `sqlite:${join(dir, 'lease.db')}`,
          http: false,
          worker: false,
          log: () => undefined,
        });
        assert.equal(svc.interlock.leaseMs, LEASE);
        assert.equal(seen?.leaseMs, LEASE, 'the config builds its agents on that engine');
        await svc.close();
        process.env.INTERLOCK_LEASE_MS = 'sixty seconds';
        await assert.rejects(
          startService({
            config: defineConfig({ policy, agents: () => [] }),
            databaseUrl: `sqlite:${join(dir, 'lease2.db')}`,
            http: false,
            worker: false,
          }),
          { code: 'invalid_config' },
        );
      } finally {
        if (saved === undefined) delete process.env.INTERLOCK_LEASE_MS;
        else process.env.INTERLOCK_LEASE_MS = saved;
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
