/**
 * `executeOnce` with a checkpoint: the caller's state before the side effect
 * commits in the claim's transaction — together with the claim, or not at all.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { InterlockError, type PolicyConfig } from '../core/index.ts';
import type { Store } from '../store/types.ts';
import { createInterlock, type Interlock } from './interlock.ts';

const policy: PolicyConfig = {
  tools: {
    issue_refund: [
      { id: 'small', tier: 'auto', reason: 'refund up to $500' },
      {
        id: 'large',
        tier: 'approve',
        role: 'supervisor',
        reason: 'refund over $500',
        when: ({ args }) => Number(args.amount) > 500,
      },
    ],
  },
};

for (const backend of allBackends()) {
  describe(`executeOnce with a checkpoint on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let n = 0;
    const thread = () => ({ id: `xc-${backend.name}-${++n}`, agent: 'support', agentVersion: '1' });
    const checkpointOf = (t: { id: string; agent: string; agentVersion: string }, text: string) => ({
      thread: t,
      checkpoint: {
        newMessages: [{ role: 'assistant', content: [{ type: 'text', text }] }],
        state: { step: text },
        schemaVersion: 1,
      },
      status: 'running' as const,
      audit: [{ type: 'edited' as const, actor: 'hook:test', threadId: t.id, payload: { note: text } }],
    });

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy });
    });
    after(() => backend.destroy());

    it('commits the checkpoint, its messages and audit with the claim, in one transaction', async () => {
      const t = thread();
      const before = store.stats.transactions;
      const out = await il.executeOnce(
        { key: `${t.id}:call_1`, tool: 'issue_refund', args: { amount: 10 }, threadId: t.id },
        async () => ({ ok: true }),
        {
          checkpoint: checkpointOf(t, 'proposed a refund'),
        },
      );
      assert.equal(out.status, 'succeeded');
      // The claim (with the checkpoint) and the outcome: two transactions, not three.
      assert.equal(store.stats.transactions - before, 2);
      const cp = await store.getLatestCheckpoint(t.id);
      assert.deepEqual(cp?.state, { step: 'proposed a refund' });
      assert.equal(cp?.messageCount, 1);
      assert.deepEqual(await store.listMessages(t.id), [
        { role: 'assistant', content: [{ type: 'text', text: 'proposed a refund' }] },
      ]);
      assert.deepEqual(
        (await store.listAudit({ threadId: t.id })).map((e) => e.type),
        ['edited', 'executed'],
      );
    });

    it('writes the checkpoint even when the key already ran, and replays the outcome', async () => {
      const t = thread();
      const key = `${t.id}:call_1`;
      await il.executeOnce({ key, tool: 'issue_refund', args: { amount: 10 }, threadId: t.id }, async () => 'first');
      let ran = 0;
      const again = await il.executeOnce(
        { key, tool: 'issue_refund', args: { amount: 10 }, threadId: t.id },
        async () => {
          ran++;
          return 'second';
        },
        { checkpoint: checkpointOf(t, 'retried') },
      );
      assert.deepEqual(again, { status: 'succeeded', result: 'first', replayed: true, key });
      assert.equal(ran, 0);
      assert.deepEqual((await store.getLatestCheckpoint(t.id))?.state, { step: 'retried' });
    });

    it('writes nothing when the claim is refused', async () => {
      const t = thread();
      const verdict = await il.gate({ tool: 'issue_refund', args: { amount: 900 } });
      const { requests } = await il.pause({
        thread: t,
        items: [{ call: { tool: 'issue_refund', args: { amount: 900 } }, verdict }],
        proposer: 'agent:support',
      });
      const req = requests[0]!;
      const countBefore = (await store.getThread(t.id))?.messageCount;
      await assert.rejects(
        il.executeOnce(
          {
            key: `${req.id}:${req.actionHash}`,
            tool: 'issue_refund',
            args: { amount: 900 },
            threadId: t.id,
            requestId: req.id,
          },
          async () => 'never',
          {
            checkpoint: checkpointOf(t, 'should not stick'),
          },
        ),
        (err: unknown) => err instanceof InterlockError && err.code === 'not_authorized',
      );
      assert.equal(await store.getLatestCheckpoint(t.id), undefined);
      assert.equal((await store.getThread(t.id))?.messageCount, countBefore);
      assert.deepEqual(
        (await store.listAudit({ threadId: t.id })).map((e) => e.type),
        ['interrupted'],
      );
    });
  });
}
