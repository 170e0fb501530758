import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { postgresBackend } from '../testing/backends.ts';
import { createInterlock } from './interlock.ts';
import type { EngineEvent } from './context.ts';

// Only PostgreSQL shares live events between processes (LISTEN/NOTIFY); SQLite serves one process.
describe('live events across processes on postgres', () => {
  const backend = postgresBackend();
  after(() => backend.destroy());
  let a: ReturnType<typeof createInterlock>;
  let b: ReturnType<typeof createInterlock>;
  const policy = { tools: { refund: [{ id: 'r', tier: 'approve' as const, role: 'supervisor', reason: 'refunds' }] } };
  before(async () => {
    a = createInterlock({ store: await backend.create(), policy, owner: 'process-a' });
    b = createInterlock({ store: await backend.create(), policy, owner: 'process-b' });
  });

  it('a pause and a decision in one process reach listeners of another, marked remote', async () => {
    const seen: EngineEvent[] = [];
    const off = b.on((e) => seen.push(e));
    await new Promise((r) => setTimeout(r, 100)); // LISTEN is set up
    const call = { tool: 'refund', args: { amount: 900 } };
    const { requests } = await a.pause({
      thread: { id: 't-ev', agent: 'x', agentVersion: '1' },
      items: [{ call, verdict: await a.gate(call) }],
      proposer: 'agent:x',
    });
    const req = requests[0]!;
    await a.decide(
      req.id,
      { type: 'approve', expectedVersion: 1, actionHash: req.actionHash },
      { id: 'sam', roles: ['supervisor'] },
    );
    for (let i = 0; i < 100 && !seen.some((e) => e.type === 'approval.decided'); i++)
      await new Promise((r) => setTimeout(r, 20));
    off();
    const types = seen.map((e) => e.type);
    assert.ok(types.includes('approval.created'), types.join(','));
    assert.ok(types.includes('approval.decided'), types.join(','));
    assert.ok(seen.every((e) => e.remote === true));
  });
});
