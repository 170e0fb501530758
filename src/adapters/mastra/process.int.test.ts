import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allBackends } from '../../testing/backends.ts';
import type { Interlock } from '../../engine/index.ts';
import { startServerFixture, type ServerFixture } from '../../../test/support/server-fixture.ts';

// Interlock's checkpoint is the source of truth for a paused Mastra run: every child process below has
// its own Mastra with its own in-memory storage, so a process that resumes has only what Interlock kept.
const child = fileURLToPath(new URL('../../../test/support/mastra-child.ts', import.meta.url));

for (const backend of allBackends()) {
  describe(`Mastra adapter across processes on ${backend.name}`, () => {
    let il: Interlock;
    let api: ServerFixture;
    const dir = mkdtempSync(join(tmpdir(), 'interlock-mastra-proc-'));

    before(async () => {
      // The reviewers' HTTP API over the database the children use.
      api = await startServerFixture(backend);
      il = api.interlock;
    });
    after(async () => {
      await api.close();
      await backend.destroy();
    });

    function run(verb: 'invoke' | 'resume', threadId: string, ledger: string, extra: Record<string, string> = {}) {
      const r = spawnSync(process.execPath, [child, verb, threadId, ledger], {
        env: { ...process.env, ...backend.env(), ...extra },
        encoding: 'utf8',
        timeout: 60_000,
      });
      return { status: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
    }
    const paid = (ledger: string) => (existsSync(ledger) ? readFileSync(ledger, 'utf8').trim().split('\n') : []);
    /** Resume until the dead process's leases ran out (exit 3: busy). */
    function resumeAfterRestart(t: string, ledger: string) {
      let again = run('resume', t, ledger);
      for (let i = 0; i < 40 && again.status === 3; i++) again = run('resume', t, ledger);
      return again;
    }

    it('pauses in one process; a reviewer approves over HTTP; another process (empty Mastra storage) resumes it', async () => {
      const t = `mastra-proc-${backend.name}-1`;
      const ledger = join(dir, `${t}.jsonl`);
      const first = run('invoke', t, ledger);
      assert.equal(first.status, 0, first.err);
      const id = (JSON.parse(first.out) as { interrupts: Array<{ id: string }> }).interrupts[0]!.id;
      const packet = await api.call<{ version: number; actionHash: string; toolCallId: string }>(
        `/api/v1/approvals/${id}`,
        'alice',
      );
      assert.equal(packet.body.toolCallId, 'call_refund');
      const decided = await api.call(`/api/v1/approvals/${id}/decision`, 'alice', {
        method: 'POST',
        body: { type: 'approve', expectedVersion: packet.body.version, actionHash: packet.body.actionHash },
      });
      assert.equal(decided.status, 200, JSON.stringify(decided.body));
      const second = run('resume', t, ledger);
      assert.equal(second.status, 0, second.err);
      assert.match(second.out, /"stopReason":"end_turn"/);
      assert.match(second.out, /refunded.{0,4}850/, "the model read the tool's result");
      assert.equal(paid(ledger).length, 1);
      assert.equal((await il.getRequestOrThrow(id)).status, 'executed');
      assert.equal((await il.threads.getThread(t))?.status, 'completed');
    });

    for (const when of ['before', 'after'] as const)
      it(`killed ${when} the payment, between the decision and the saved outcome: after a restart it is paid exactly once`, async () => {
        const t = `mastra-proc-${backend.name}-kill-${when}`;
        const ledger = join(dir, `${t}.jsonl`);
        const first = run('invoke', t, ledger);
        const id = (JSON.parse(first.out) as { interrupts: Array<{ id: string }> }).interrupts[0]!.id;
        const req = await il.getRequestOrThrow(id);
        await il.decide(
          req.id,
          { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
          { id: 'sam', roles: ['supervisor'] },
        );
        const killed = run('resume', t, ledger, { KILL_IN_EXECUTE: when });
        assert.equal(killed.signal, 'SIGKILL');
        assert.equal(paid(ledger).length, when === 'before' ? 0 : 1);
        assert.equal((await il.getRequestOrThrow(id)).status, 'executing');
        // Interlock's checkpoint still holds the paused run: the dead process's Mastra progress is gone with it.
        assert.equal((await il.threads.getThread(t))?.status, 'interrupted');
        const again = resumeAfterRestart(t, ledger);
        assert.equal(again.status, 0, again.err);
        assert.match(again.out, /"stopReason":"end_turn"/);
        assert.equal(run('resume', t, ledger).status, 0);
        const lines = paid(ledger);
        assert.equal(lines.length, 1);
        assert.equal((JSON.parse(lines[0]!) as { key: string }).key, `${req.id}:${req.actionHash}`);
        assert.equal((await il.getRequestOrThrow(id)).status, 'executed');
        assert.equal((await il.threads.getThread(t))?.status, 'completed');
      });
  });
}
