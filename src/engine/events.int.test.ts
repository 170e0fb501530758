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
  it('a message published in a transaction is delivered at its commit, and never for one rolled back', async () => {
    const sender = await backend.create();
    const receiver = await backend.create();
    const got: unknown[] = [];
    const stop = await receiver.events!.subscribe((m) => got.push(m));
    try {
      // Rolled back after its NOTIFY was sent with the transaction's other statements.
      await assert.rejects(
        sender.transaction(async (tx) => {
          await tx.publishOnCommit!({ tag: 'rolled-back' });
          await tx.getThread('t-none');
          throw new Error('changed its mind');
        }),
        /changed its mind/,
      );
      await sender.transaction(async (tx) => {
        await tx.publishOnCommit!({ tag: 'committed' });
        await tx.getThread('t-none');
      });
      const end = Date.now() + 5000;
      while (!got.some((m) => (m as { tag?: string }).tag === 'committed') && Date.now() < end)
        await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(got, [{ tag: 'committed' }]);
    } finally {
      await stop();
    }
  });

  it('a decision reaches the others even when its process sends nothing after the commit (killed right after it)', async () => {
    // Process c's bus never sends: what a process killed between its commit and a later NOTIFY
    // would manage. Its decision must reach b anyway, because it travels with the commit itself.
    const store = await backend.create();
    const silent = { ...store, events: { ...store.events!, publish: () => new Promise<void>(() => undefined) } };
    const c = createInterlock({ store: silent, policy, owner: 'process-c' });
    const seen: EngineEvent[] = [];
    const off = b.on((e) => seen.push(e));
    try {
      await listening(b, a);
      const call = { tool: 'refund', args: { amount: 901 } };
      const thread = { id: 't-silent', agent: 'x', agentVersion: '1' };
      const { requests } = await c.pause({
        thread,
        items: [{ call, verdict: await c.gate(call) }],
        proposer: 'agent:x',
      });
      const req = requests[0]!;
      const reviewer = { id: 'sam', roles: ['supervisor'] };
      // Refused (stale version): rolled back, so nobody may hear of it.
      await assert.rejects(
        c.decide(req.id, { type: 'approve', expectedVersion: 7, actionHash: req.actionHash }, reviewer),
      );
      await c.decide(req.id, { type: 'approve', expectedVersion: 1, actionHash: req.actionHash }, reviewer);
      await waitFor(() => seen.some((e) => e.type === 'approval.decided' && e.requestId === req.id));
      const about = seen.filter((e) => e.threadId === 't-silent').map((e) => e.type);
      // In commit order, each once: the pause's request, then the one decision that committed. (The
      // thread's status goes after the commit, batched: a thread's status is not worth the commit-time lock.)
      assert.deepEqual(about, ['approval.created', 'approval.decided']);
      assert.ok(seen.filter((e) => e.threadId === 't-silent').every((e) => e.remote === true));
    } finally {
      off();
    }
  });
});

/** Resolves once `to` hears an event `from` sends (LISTEN is live: messages sent before it are not delivered). */
async function listening(
  to: ReturnType<typeof createInterlock>,
  from: ReturnType<typeof createInterlock>,
): Promise<void> {
  const threadId = `t-probe-${Math.random().toString(36).slice(2)}`;
  let heard = false;
  const stop = to.on((e) => {
    if (e.threadId === threadId) heard = true;
  });
  const probing = setInterval(() => from.emit({ type: 'thread.status', threadId, status: 'running' }), 20);
  try {
    await waitFor(() => heard);
  } finally {
    clearInterval(probing);
    stop();
  }
}

/** Polls `ok` every 10 ms; fails after 5 s. */
async function waitFor(ok: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!ok()) {
    if (Date.now() > end) throw new Error('the other process heard nothing within 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}
