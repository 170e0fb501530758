/**
 * Ending a thread (an abort, a timeout whose rule aborts, a resume that gives up) locks its open
 * requests before the audit chain, as an execution's outcome takes them (ledger row, request, chain).
 * Taking the chain first deadlocked against an outcome finishing on the same thread on PostgreSQL
 * (the server broke the cycle after its `deadlock_timeout`, and the store retried: a stall, not a loss).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import type { PolicyConfig } from '../core/index.ts';
import type { Store, StoreTx } from '../store/types.ts';
import { createInterlock, type Interlock } from './interlock.ts';

const policy: PolicyConfig = {
  tools: {
    deploy: [{ id: 'deploy', tier: 'approve', role: 'sre', reason: 'deploys', timeout: '10m', onTimeout: 'abort' }],
    issue_refund: [{ id: 'refund', tier: 'approve', role: 'sre', reason: 'refunds', timeout: '24h' }],
  },
};

/** The store, with the name of every operation a transaction runs recorded in `calls`, in order. */
function recording(store: Store, calls: string[]): Store {
  const tracked = (tx: StoreTx): StoreTx =>
    new Proxy(tx, {
      get(t, p) {
        const v: unknown = Reflect.get(t, p);
        if (typeof v !== 'function') return v;
        return (...a: unknown[]) => {
          calls.push(String(p));
          return (v as (...x: unknown[]) => unknown).apply(t, a);
        };
      },
    });
  return new Proxy(store, {
    get(s, p) {
      if (p === 'transaction')
        return <R>(fn: (tx: StoreTx) => Promise<R>, ...rest: unknown[]) =>
          (s.transaction as (f: (tx: StoreTx) => Promise<R>, ...r: unknown[]) => Promise<R>)(
            (tx) => fn(tracked(tx)),
            ...rest,
          );
      const v: unknown = Reflect.get(s, p);
      return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(s) : v;
    },
  });
}

/** The requests are locked (read for update) before the chain is appended to. */
function chainLast(calls: readonly string[]): void {
  const lastLock = calls.lastIndexOf('getRequest');
  const firstAppend = calls.indexOf('appendAudit');
  assert.ok(lastLock >= 0 && firstAppend >= 0, `both ran: ${calls.join(', ')}`);
  assert.ok(lastLock < firstAppend, `the audit chain after the requests: ${calls.join(', ')}`);
}

for (const backend of allBackends()) {
  describe(`ending a thread takes the audit chain last, on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let clock = Date.now();
    const calls: string[] = [];
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store: recording(store, calls), policy, now: () => clock });
    });
    after(() => backend.destroy());

    /** A paused thread with a deploy and a refund waiting, the refund approved (authorized). */
    async function paused() {
      const t = { id: `end-${backend.name}-${++n}`, agent: 'ops', agentVersion: '1' };
      const deploy = { tool: 'deploy', args: { service: 'api', n } };
      const refund = { tool: 'issue_refund', args: { orderId: `ORD-${n}`, amount: 900 } };
      const { requests } = await il.pause({
        thread: t,
        checkpoint: { newMessages: [{ role: 'user', content: 'go' }], state: {}, schemaVersion: 1 },
        items: [
          { call: deploy, verdict: await il.gate(deploy, {}) },
          { call: refund, verdict: await il.gate(refund, {}) },
        ],
        proposer: 'agent:ops',
      });
      const r = requests[1]!;
      await il.decide(
        r.id,
        { type: 'approve', expectedVersion: r.version, actionHash: r.actionHash },
        {
          id: 'sam',
          roles: ['sre'],
        },
      );
      return { t, requests };
    }

    it('an abort of a paused thread', async () => {
      const { t, requests } = await paused();
      calls.length = 0;
      await il.threads.abort(t.id, 'operator');
      chainLast(calls);
      for (const r of requests) assert.equal((await store.getRequest(r.id))!.status, 'cancelled');
      const events = (await store.listAudit({ threadId: t.id })).map((e) => e.type);
      assert.deepEqual(
        events.slice(-3),
        ['aborted', 'cancelled', 'cancelled'],
        'the end first, then the cancellations',
      );
      assert.equal((await il.verifyAudit()).ok, true);
    });

    it('a timeout whose rule aborts the thread', async () => {
      const { t, requests } = await paused();
      clock += 11 * 60_000;
      calls.length = 0;
      await il.expireDue();
      clock -= 11 * 60_000;
      chainLast(calls);
      assert.equal((await store.getRequest(requests[0]!.id))!.status, 'expired');
      assert.equal((await store.getRequest(requests[1]!.id))!.status, 'cancelled');
      const events = (await store.listAudit({ threadId: t.id })).map((e) => e.type);
      assert.deepEqual(
        events.slice(-3),
        ['expired', 'aborted', 'cancelled'],
        'expired, aborted, then the cancellations',
      );
      assert.equal((await il.verifyAudit()).ok, true);
    });
  });
}
