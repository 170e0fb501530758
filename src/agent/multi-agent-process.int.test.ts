import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { allBackends } from '../testing/backends.ts';
import { treePolicy } from '../testing/multi-agent-fixture.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import type { Store } from '../store/types.ts';

const child = fileURLToPath(new URL('../../test/support/multi-agent-child.ts', import.meta.url));

for (const backend of allBackends())
  describe(`a tree of agents across processes on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    const dir = mkdtempSync(join(tmpdir(), 'interlock-tree-proc-'));

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: treePolicy });
    });
    after(() => backend.destroy());

    function run(verb: 'invoke' | 'resume', threadId: string, ledger: string, extra: Record<string, string> = {}) {
      const r = spawnSync(process.execPath, [child, verb, threadId, ledger], {
        env: { ...process.env, ...backend.env(), ...extra },
        encoding: 'utf8',
        timeout: 60_000,
      });
      return { status: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
    }

    it('killed inside the sub-agent after the approval: another process resumes the tree and pays once, repeating no model call', async () => {
      const threadId = `tree-proc-${backend.name}`;
      const ledger = join(dir, `${threadId}.jsonl`);
      const first = run('invoke', threadId, ledger);
      assert.equal(first.status, 0, first.err);
      const paused = JSON.parse(first.out) as { interrupts: Array<{ id: string; path: string[] }> };
      assert.deepEqual(paused.interrupts[0]?.path, ['support', 'refunds']);
      const req = await il.getRequestOrThrow(paused.interrupts[0].id);
      await il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        { id: 'sam', roles: ['supervisor'] },
      );

      const killed = run('resume', threadId, ledger, { KILL_IN_EXECUTE: '1' });
      assert.equal(killed.signal, 'SIGKILL', killed.err);
      assert.equal(existsSync(ledger), false, 'died before paying');

      // Another process, once the dead one's leases (500 ms) ran out.
      let done: ReturnType<typeof run> | undefined;
      for (let i = 0; i < 40; i++) {
        await sleep(250);
        done = run('resume', threadId, ledger);
        if (done.status !== 3) break;
      }
      assert.equal(done?.status, 0, done?.err);
      const out = JSON.parse(done.out) as { stopReason: string; text: string; modelCalls: Record<string, number> };
      assert.equal(out.stopReason, 'end_turn');
      assert.match(out.text, /The refunds team says: Refund done/);
      // This process asked each model once: the sub-agent for its report, the parent for its answer.
      assert.deepEqual(out.modelCalls, { support: 1, refunds: 1 });
      assert.equal(readFileSync(ledger, 'utf8').trim().split('\n').length, 1, 'paid exactly once');
      assert.equal((await store.listMessages(threadId)).length, 4);
      assert.equal((await store.listMessages(req.threadId)).length, 4);
      assert.equal((await store.getThread(threadId))?.status, 'completed');
    });
  });
