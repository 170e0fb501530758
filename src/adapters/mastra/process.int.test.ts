import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allBackends } from '../../testing/backends.ts';
import { childProcesses } from '../../../test/support/child-processes.ts';

// Interlock's checkpoint is the source of truth for a paused Mastra run: every child process below has
// its own Mastra with its own in-memory storage, so a process that resumes has only what Interlock kept.
const child = fileURLToPath(new URL('../../../test/support/mastra-child.ts', import.meta.url));

for (const backend of allBackends()) {
  describe(`Mastra adapter across processes on ${backend.name}`, () => {
    const h = childProcesses(child, backend);
    const { dir, run, paid, resumeAfterRestart } = h;

    it('pauses in one process; a reviewer approves over HTTP; another process (empty Mastra storage) resumes it', async () => {
      const t = `mastra-proc-${backend.name}-1`;
      const ledger = join(dir, `${t}.jsonl`);
      const first = await run('invoke', t, ledger);
      assert.equal(first.status, 0, first.err);
      const id = (JSON.parse(first.out) as { interrupts: Array<{ id: string }> }).interrupts[0]!.id;
      const packet = await h.api.call<{ version: number; actionHash: string; toolCallId: string }>(
        `/api/v1/approvals/${id}`,
        'alice',
      );
      assert.equal(packet.body.toolCallId, 'call_refund');
      const decided = await h.api.call(`/api/v1/approvals/${id}/decision`, 'alice', {
        method: 'POST',
        body: { type: 'approve', expectedVersion: packet.body.version, actionHash: packet.body.actionHash },
      });
      assert.equal(decided.status, 200, JSON.stringify(decided.body));
      const second = await run('resume', t, ledger);
      assert.equal(second.status, 0, second.err);
      assert.match(second.out, /"stopReason":"end_turn"/);
      assert.match(second.out, /refunded.{0,4}850/, "the model read the tool's result");
      assert.equal(paid(ledger).length, 1);
      assert.equal((await h.il.getRequestOrThrow(id)).status, 'executed');
      assert.equal((await h.il.threads.getThread(t))?.status, 'completed');
    });

    for (const when of ['before', 'after'] as const)
      it(`killed ${when} the payment, between the decision and the saved outcome: after a restart it is paid exactly once`, async () => {
        const t = `mastra-proc-${backend.name}-kill-${when}`;
        const ledger = join(dir, `${t}.jsonl`);
        const first = await run('invoke', t, ledger);
        const id = (JSON.parse(first.out) as { interrupts: Array<{ id: string }> }).interrupts[0]!.id;
        const req = await h.il.getRequestOrThrow(id);
        await h.il.decide(
          req.id,
          { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
          { id: 'sam', roles: ['supervisor'] },
        );
        const killed = await run('resume', t, ledger, { KILL_IN_EXECUTE: when });
        assert.equal(killed.signal, 'SIGKILL');
        assert.equal(paid(ledger).length, when === 'before' ? 0 : 1);
        assert.equal((await h.il.getRequestOrThrow(id)).status, 'executing');
        // Interlock's checkpoint still holds the paused run: the dead process's Mastra progress is gone with it.
        assert.equal((await h.il.threads.getThread(t))?.status, 'interrupted');
        const again = await resumeAfterRestart(t, ledger);
        assert.equal(again.status, 0, again.err);
        assert.match(again.out, /"stopReason":"end_turn"/);
        assert.equal((await run('resume', t, ledger)).status, 0);
        const lines = paid(ledger);
        assert.equal(lines.length, 1);
        assert.equal((JSON.parse(lines[0]!) as { key: string }).key, `${req.id}:${req.actionHash}`);
        assert.equal((await h.il.getRequestOrThrow(id)).status, 'executed');
        assert.equal((await h.il.threads.getThread(t))?.status, 'completed');
      });
  });
}
