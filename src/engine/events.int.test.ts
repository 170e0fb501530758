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
    /** The first event of `b`'s listeners that matches, or a failure after 5 s. */
    const arrival = (what: string, match: (e: EngineEvent) => boolean) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${what} reached the other process within 5 s`)), 5000);
        const stop = b.on((e) => {
          if (!match(e)) return;
          clearTimeout(timer);
          stop();
          resolve();
        });
      });
    // LISTEN is live once a probe from process a arrives (messages sent before it are not delivered).
    const probed = arrival('probe', (e) => e.type === 'thread.status' && e.threadId === 't-probe');
    const probing = setInterval(() => a.emit({ type: 'thread.status', threadId: 't-probe', status: 'running' }), 20);
    await probed.finally(() => clearInterval(probing));
    seen.length = 0;
    const decided = arrival('approval.decided', (e) => e.type === 'approval.decided');
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
    await decided;
    off();
    const types = seen.map((e) => e.type);
    assert.ok(types.includes('approval.created'), types.join(','));
    assert.ok(types.includes('approval.decided'), types.join(','));
    assert.ok(seen.filter((e) => e.threadId !== 't-probe').every((e) => e.remote === true));
  });
});
