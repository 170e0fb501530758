import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalRequest } from '../core/index.ts';
import { guard, startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';
import { allBackends } from '../testing/backends.ts';
import { batchDigest } from './batch-digest.ts';
import { createWebUi } from './web-ui.ts';

type ErrorBody = { error: { code: string; message: string } };
type Item = { id: string; version: number; actionHash: string; tool: string; threadId: string };
type BatchView = ErrorBody & {
  group: Record<string, string>;
  items: Item[];
  digest: string;
  excluded: Array<{ id: string; reason: string }>;
};
type BatchAnswer = ErrorBody & {
  digest: string;
  skipped: string[];
  approved: number;
  failed: number;
  results: Array<{
    id: string;
    ok: boolean;
    outcome?: string;
    status?: string;
    error?: { code: string; status: number };
  }>;
};

const shown = (items: readonly Item[]) =>
  items.map((i) => ({ id: i.id, expectedVersion: i.version, actionHash: i.actionHash }));

for (const backend of allBackends()) {
  describe(`web API (batch, timeline, dashboard) on ${backend.name}`, () => {
    let f: ServerFixture;
    let n = 0;
    before(async () => {
      f = await startServerFixture(backend, { ui: createWebUi() });
    });
    after(async () => {
      assert.deepEqual(f.logged, [], 'no unexpected server errors');
      await f.close();
    });
    const thread = () => `web-${backend.name}-${++n}`;
    const batchOf = (q: string, who: 'alice' | 'bob' | 'carol' | 'olga' = 'alice') =>
      f.call<BatchView>(`/api/v1/batch?${q}`, who);
    const approveBatch = (body: unknown, who: 'alice' | 'bob' | 'carol' = 'alice') =>
      f.call<BatchAnswer>('/api/v1/batch/decision', who, { body });

    it('shows a thread’s requests the caller can approve, with the digest of exactly that list', async () => {
      const t = thread();
      const a = await f.pauseRefund(700, { threadId: t });
      f.clock.advance(1000);
      const b = await f.pauseRefund(800, { threadId: t });
      const mine = await f.pauseRefund(900, { threadId: t, proposer: f.ids.alice });
      const r = await batchOf(`threadId=${t}`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.group, { by: 'thread', threadId: t });
      assert.deepEqual(r.body.items.map((i) => i.id).sort(), [a.id, b.id].sort());
      assert.equal(r.body.digest, batchDigest(shown(r.body.items)));
      assert.deepEqual(r.body.excluded, [{ id: mine.id, tool: 'issue_refund', reason: 'you proposed it' }]);
      const byTool = await batchOf('tool=issue_refund');
      assert.ok(byTool.body.items.some((i) => i.id === a.id));
      assert.equal(
        (await batchOf(`threadId=${t}`, 'carol')).body.items.length,
        0,
        'other roles see nothing to approve',
      );
      assert.equal((await batchOf('')).status, 400);
      assert.equal((await batchOf(`threadId=${t}&tool=issue_refund`)).status, 400);
    });

    it('approves exactly the list shown: a later request is not covered, and a changed list is refused', async () => {
      const t = thread();
      await f.pauseRefund(700, { threadId: t });
      await f.pauseRefund(800, { threadId: t });
      const view = (await batchOf(`threadId=${t}`)).body;
      const later = await f.pauseRefund(950, { threadId: t });

      const extended = [
        ...shown(view.items),
        { id: later.id, expectedVersion: later.version, actionHash: later.actionHash },
      ];
      const sneaky = await approveBatch({ type: 'approve', items: extended, digest: view.digest });
      assert.equal(sneaky.status, 400);
      assert.equal(sneaky.body.error.code, 'batch_digest_mismatch');
      const reordered = await approveBatch({
        type: 'approve',
        items: shown(view.items).reverse(),
        digest: view.digest,
      });
      assert.equal(reordered.body.error.code, 'batch_digest_mismatch');
      for (const i of view.items)
        assert.equal((await f.interlock.getRequestOrThrow(i.id)).status, 'pending', 'a refused batch decides nothing');

      const ok = await approveBatch({ type: 'approve', items: shown(view.items), digest: view.digest });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.approved, 2);
      assert.equal(ok.body.failed, 0);
      assert.deepEqual(
        ok.body.results.map((x) => [x.ok, x.outcome]),
        [
          [true, 'authorized'],
          [true, 'authorized'],
        ],
      );
      for (const i of view.items) {
        const req = await f.interlock.getRequestOrThrow(i.id);
        assert.equal(req.status, 'authorized');
        assert.equal(req.resolution?.by, f.ids.alice);
      }
      assert.equal(
        (await f.interlock.getRequestOrThrow(later.id)).status,
        'pending',
        'the later request was not covered',
      );
      const events = await f.store.listAudit({ threadId: t });
      assert.equal(events.filter((e) => e.type === 'approved').length, 2);
    });

    it('decides each item on its own: a stale item reports its conflict, the others land', async () => {
      const t = thread();
      const reqs: ApprovalRequest[] = [];
      for (const amount of [610, 620, 630]) reqs.push(await f.pauseRefund(amount, { threadId: t }));
      const view = (await batchOf(`threadId=${t}`)).body;
      const taken = view.items[1]!;
      assert.equal(
        (
          await f.call(`/api/v1/approvals/${taken.id}/decision`, 'bob', {
            body: { type: 'approve', ...guard({ version: taken.version, actionHash: taken.actionHash }) },
          })
        ).status,
        200,
      );
      const r = await approveBatch({ type: 'approve', items: shown(view.items), digest: view.digest });
      assert.equal(r.status, 200);
      assert.equal(r.body.approved, 2);
      assert.equal(r.body.failed, 1);
      const failed = r.body.results.find((x) => !x.ok)!;
      assert.equal(failed.id, taken.id);
      assert.deepEqual(failed.error && { code: failed.error.code, status: failed.error.status }, {
        code: 'already_resolved',
        status: 409,
      });
      assert.equal(
        (await f.interlock.getRequestOrThrow(taken.id)).resolution?.by,
        f.ids.bob,
        'the first decision stands',
      );
    });

    it('leaves items marked skip undecided, still bound to the list shown', async () => {
      const t = thread();
      const kept = await f.pauseRefund(710, { threadId: t });
      const left = await f.pauseRefund(2600, { threadId: t });
      const view = (await batchOf(`threadId=${t}`)).body;
      const items = shown(view.items).map((i) => (i.id === left.id ? { ...i, skip: true } : i));
      const r = await approveBatch({ type: 'approve', items, digest: view.digest });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.skipped, [left.id]);
      assert.deepEqual(
        r.body.results.map((x) => [x.id, x.outcome]),
        [[kept.id, 'authorized']],
      );
      assert.equal(
        (await f.interlock.getRequestOrThrow(left.id)).status,
        'pending',
        'the unticked item was not decided',
      );
      const none = await approveBatch({
        type: 'approve',
        items: shown(view.items).map((i) => ({ ...i, skip: true })),
        digest: view.digest,
      });
      assert.equal(none.status, 400);
      assert.equal(none.body.error.code, 'invalid_input');
    });

    it('counts toward a quorum, refuses other roles per item, and refuses duplicates and oversize batches', async () => {
      const t = thread();
      const quorum = await f.pauseRefund(2500, { threadId: t });
      const view = (await batchOf(`threadId=${t}`)).body;
      const r = await approveBatch({ type: 'approve', items: shown(view.items), digest: view.digest });
      assert.deepEqual(r.body.results, [
        { id: quorum.id, ok: true, outcome: 'pending', status: 'pending', approvalsReceived: 1, approvalsRequired: 2 },
      ]);

      const wire = await f.pauseWire();
      const asAlice = [{ id: wire.id, expectedVersion: wire.version, actionHash: wire.actionHash }];
      const refused = await approveBatch({ type: 'approve', items: asAlice, digest: batchDigest(asAlice) });
      assert.equal(refused.status, 200);
      assert.equal(refused.body.results[0]?.error?.code, 'forbidden_role');
      assert.equal((await f.interlock.getRequestOrThrow(wire.id)).status, 'pending');

      const twice = [...asAlice, ...asAlice];
      const dup = await approveBatch({ type: 'approve', items: twice, digest: batchDigest(twice) });
      assert.equal(dup.status, 400);
      assert.equal(dup.body.error.code, 'invalid_input');
      const many = Array.from({ length: 101 }, (_, i) => ({ id: `apr_${i}`, expectedVersion: 1, actionHash: 'x' }));
      assert.equal((await approveBatch({ type: 'approve', items: many, digest: batchDigest(many) })).status, 400);
      assert.equal(
        (await approveBatch({ type: 'reject', items: asAlice, digest: batchDigest(asAlice) })).status,
        400,
        'batches only approve',
      );
    });

    it('a thread timeline: conversation, requests with their tool call, audit with names, chain status', async () => {
      const t = thread();
      const req = await f.pauseRefund(777, { threadId: t });
      await f.call(`/api/v1/approvals/${req.id}/decision`, 'bob', {
        body: { type: 'reject', message: 'no', ...guard(req) },
      });
      type Timeline = ErrorBody & {
        thread: { threadId: string; status: string };
        messages: unknown[];
        requests: Array<{ id: string; status: string; toolCallId: string | null }>;
        audit: Array<{ type: string; actor: string; at: string }>;
        actors: Record<string, string>;
        chain: { scope: string; ok: boolean; events: number };
      };
      const r = await f.call<Timeline>(`/api/v1/threads/${t}/timeline`, 'alice');
      assert.equal(r.status, 200);
      assert.equal(r.body.thread.threadId, t);
      assert.deepEqual(r.body.messages, [{ role: 'user', content: 'please' }]);
      assert.deepEqual(
        r.body.requests.map((x) => [x.id, x.status]),
        [[req.id, 'rejected']],
      );
      assert.deepEqual(
        r.body.audit.map((e) => e.type),
        ['interrupted', 'rejected'],
      );
      assert.equal(r.body.actors[`reviewer:${f.ids.bob}`], 'bob');
      assert.match(r.body.audit[0]!.at, /^\d{4}-\d\d-\d\dT/);
      assert.deepEqual(r.body.chain, { scope: 'thread', ok: true, events: 2, brokenAt: null });
      const op = await f.call<Timeline>(`/api/v1/threads/${t}/timeline`, 'olga');
      assert.equal(op.body.chain.scope, 'full');
      assert.equal(op.body.chain.ok, true);
      assert.equal((await f.call<ErrorBody>(`/api/v1/threads/${t}/timeline`, 'carol')).status, 403);
      assert.equal((await f.call<ErrorBody>('/api/v1/threads/nope/timeline', 'olga')).status, 404);
    });

    it('the dashboard: per-tool figures and queue depth over time', async () => {
      type Dash = ErrorBody & {
        window: string;
        rollup: { tools: Array<{ tool: string; requests: number; pending: number }> };
        queueDepth: Array<{ at: string; depth: number }>;
        pendingNow: number;
      };
      const r = await f.call<Dash>('/api/v1/dashboard?window=24h', 'olga');
      assert.equal(r.status, 200);
      // A reviewer sees the figures of their roles only (carol is finance; refunds are the supervisors').
      const carol = await f.call<Dash>('/api/v1/dashboard?window=24h', 'carol');
      assert.equal(carol.status, 200);
      assert.ok(!carol.body.rollup.tools.some((x) => x.tool === 'issue_refund'));
      assert.equal(r.body.window, '24h');
      const refunds = r.body.rollup.tools.find((x) => x.tool === 'issue_refund')!;
      assert.ok(refunds.requests >= 10);
      assert.equal(r.body.queueDepth.length, 48);
      const pending = (await f.interlock.listRequests({ status: 'pending', limit: 500 })).items.length;
      assert.equal(r.body.pendingNow, pending);
      assert.equal(r.body.queueDepth.at(-1)!.depth, pending, 'the last point is now');
      assert.equal(r.body.queueDepth[0]!.depth, 0, 'nothing was pending a day before the test');
      assert.equal((await f.call<ErrorBody>('/api/v1/dashboard?window=2y', 'carol')).status, 400);
      assert.equal((await f.call<ErrorBody>('/api/v1/dashboard', null)).status, 401);
    });

    it('documents its endpoints in /openapi.json', async () => {
      const r = await f.call<{ paths: Record<string, unknown> }>('/openapi.json', null);
      for (const p of [
        '/api/v1/batch',
        '/api/v1/batch/decision',
        '/api/v1/threads/{id}/timeline',
        '/api/v1/dashboard',
        '/api/v1/approvals/{id}/decision',
      ])
        assert.ok(r.body.paths[p], p);
    });

    it('the timeline names the first tampered event of the thread', async () => {
      const t = thread();
      const req = await f.pauseRefund(778, { threadId: t });
      await f.store.unsafeQuery(`UPDATE il_audit SET payload = $1 WHERE request_id = $2`, [
        '{"tampered":true}',
        req.id,
      ]);
      type Chain = { chain: { scope: string; ok: boolean; brokenAt: { seq: number; problem: string } | null } };
      const r = await f.call<Chain>(`/api/v1/threads/${t}/timeline`, 'alice');
      assert.equal(r.body.chain.ok, false);
      assert.match(r.body.chain.brokenAt?.problem ?? '', /changed/);
      const op = await f.call<Chain>(`/api/v1/threads/${t}/timeline`, 'olga');
      assert.equal(op.body.chain.scope, 'full');
      assert.equal(op.body.chain.ok, false);
    });
  });
}
