/**
 * How often a run waits for the disk on SQLite (`durability: 'full'`): the lease a run takes commits
 * without a sync of its own (src/store/sqlite/group-commit.ts), everything a caller or a reviewer is
 * told of syncs before they hear of it. Counted with `store.stats.syncs`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '../testing/scripted-model.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportPolicy, supportScript, supportTools } from '../testing/support-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createSqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { Store } from '../store/types.ts';
import { createAgent } from './index.ts';

describe('syncs per run on SQLite', () => {
  let dir: string;
  let store: Store;
  let il: Interlock;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'interlock-syncs-'));
    store = createSqliteStore({ path: join(dir, 'syncs.db') });
    await store.migrate();
    il = createInterlock({ store, policy: supportPolicy });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async (fn: () => Promise<unknown>) => {
    const before = { ...store.stats };
    await fn();
    return {
      transactions: store.stats.transactions - before.transactions,
      syncs: (store.stats.syncs ?? 0) - (before.syncs ?? 0),
    };
  };

  it('syncs a gated cycle four times: the pause, then the decision with the claim, the outcome, the final checkpoint', async () => {
    const pay = new FakePayments();
    const agent = createAgent({
      name: 'support',
      version: '1.0.0',
      model: scriptedModel(supportScript),
      system: 'You help customers.',
      tools: supportTools(pay),
      interlock: il,
    });
    let id = '';
    // The lease claim and the pause: two commits, one sync.
    assert.deepEqual(
      await count(async () => {
        id = (await agent.invoke('refund $850', { threadId: 'thr_cycle' })).interrupts[0]!.id;
      }),
      { transactions: 2, syncs: 1 },
    );
    assert.deepEqual(
      await count(() =>
        agent.invoke(null, {
          threadId: 'thr_cycle',
          responses: { [id]: { type: 'approve' } },
          reviewer: { id: 'sam', roles: ['supervisor'] },
        }),
      ),
      { transactions: 3, syncs: 3 },
    );
    assert.equal(pay.count('refund'), 1);
    // A turn that calls nothing a person decides: the lease, the turn's checkpoint.
    assert.deepEqual(await count(() => agent.invoke('hello', { threadId: 'thr_plain' })), {
      transactions: 2,
      syncs: 1,
    });
  });
});
