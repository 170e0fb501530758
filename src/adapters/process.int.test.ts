import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allBackends } from '../testing/backends.ts';
import { childProcesses } from '../../test/support/child-processes.ts';

// One child script per adapter: the same agent on its framework, run in a process of its own.
const children = {
  'AI SDK': fileURLToPath(new URL('../../test/support/ai-sdk-child.ts', import.meta.url)),
  'OpenAI Agents SDK': fileURLToPath(new URL('../../test/support/openai-agents-child.ts', import.meta.url)),
  // LangGraph keeps the graph in its own checkpointer (PostgresSaver on PostgreSQL, a file on SQLite).
  LangChain: fileURLToPath(new URL('../../test/support/langchain-child.ts', import.meta.url)),
};

for (const [framework, child] of Object.entries(children))
  for (const backend of allBackends()) {
    describe(`${framework} adapter across processes on ${backend.name}`, () => {
      const h = childProcesses(child, backend);
      const { dir, run, paid } = h;

      it('pauses in one process; a reviewer approves over HTTP; another process resumes it', async () => {
        const t = `proc-${framework.length}-${backend.name}-1`;
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
        assert.equal(paid(ledger).length, 1);
        assert.equal((await h.il.getRequestOrThrow(id)).status, 'executed');
      });

      it('killed between authorization and payment: after a restart the refund is paid exactly once', async () => {
        const t = `proc-${framework.length}-${backend.name}-2`;
        const ledger = join(dir, `${t}.jsonl`);
        const first = await run('invoke', t, ledger);
        const id = (JSON.parse(first.out) as { interrupts: Array<{ id: string }> }).interrupts[0]!.id;
        const req = await h.il.getRequestOrThrow(id);
        await h.il.decide(
          req.id,
          { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
          {
            id: 'sam',
            roles: ['supervisor'],
          },
        );
        const killed = await run('resume', t, ledger, { KILL_IN_EXECUTE: '1' });
        assert.equal(killed.signal, 'SIGKILL');
        assert.equal(paid(ledger).length, 0);
        assert.equal((await h.il.getRequestOrThrow(id)).status, 'executing');
        // The restarted process waits out the dead one's leases (500 ms), takes the claim over under the same key.
        const again = await h.resumeAfterRestart(t, ledger);
        assert.equal(again.status, 0, again.err);
        assert.match(again.out, /"stopReason":"end_turn"/);
        assert.equal((await run('resume', t, ledger)).status, 0);
        const lines = paid(ledger);
        assert.equal(lines.length, 1);
        assert.equal((JSON.parse(lines[0]!) as { key: string }).key, `${req.id}:${req.actionHash}`);
        assert.equal((await h.il.getRequestOrThrow(id)).status, 'executed');
      });
    });
  }
