/**
 * Batch review over HTTP, on both backends: which requests a page ticks for the reviewer under the
 * operator's setting, paging through 1,050 requests by the last one shown, warnings and amounts per
 * item, and outcomes followed to their end after the approval (ran, failed with the tool's error,
 * cancelled, a planted check never shown as run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, type ApprovalRequest } from '../core/index.ts';
import { idempotencyKey } from '../engine/index.ts';
import { allBackends } from '../testing/backends.ts';
import { startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';
import { batchDigest } from './batch-digest.ts';
import { batchOptionsFromEnv } from './batch-options.ts';
import type { BatchAnswerBase, BatchOutcome } from './batch-types.ts';
import { createWebUi } from './web-ui.ts';

type Page = BatchAnswerBase & { items: Array<{ id: string; version: number; actionHash: string; tier: string }> };

describe('batch options', () => {
  it('refuses a preselect setting that is not none or approve, naming the fix', () => {
    assert.throws(
      () => createWebUi({ batch: { preselectUpTo: 'escalate' as never } }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.message, /batch\.preselectUpTo must be one of none, approve, not "escalate"/);
        return true;
      },
    );
    assert.deepEqual(batchOptionsFromEnv({}), {});
    assert.deepEqual(batchOptionsFromEnv({ INTERLOCK_BATCH_PRESELECT_UP_TO: 'approve' }), { preselectUpTo: 'approve' });
    assert.throws(
      () => batchOptionsFromEnv({ INTERLOCK_BATCH_PRESELECT_UP_TO: 'all' }),
      /INTERLOCK_BATCH_PRESELECT_UP_TO must be one of none, approve, not "all"/,
    );
  });
});

for (const backend of allBackends()) {
  describe(`batch pages and outcomes over HTTP on ${backend.name}`, () => {
    let f: ServerFixture;
    let ticking: ServerFixture;
    let n = 0;
    before(async () => {
      f = await startServerFixture(backend, { ui: createWebUi() });
      ticking = await startServerFixture(backend, { ui: createWebUi({ batch: { preselectUpTo: 'approve' } }) });
    });
    after(async () => {
      assert.deepEqual(f.logged, [], 'no unexpected server errors');
      await f.close();
      await ticking.close();
    });
    const thread = () => `batch-api-${backend.name}-${++n}`;

    it('ticks nothing by default; under preselectUpTo approve only warning-free approve-tier requests', async () => {
      for (const fx of [f, ticking]) {
        const t = thread();
        const clean = await fx.pauseRefund(700, { threadId: t, customerId: 'cus_clean' });
        const huge = await fx.pauseRefund(2500, { threadId: t, customerId: 'cus_huge' });
        const twinA = await fx.pauseRefund(800, { threadId: t, customerId: 'cus_twice' });
        const twinB = await fx.pauseRefund(900, { threadId: t, customerId: 'cus_twice' });
        const spoof = await fx.pauseRefund(600, { threadId: t, customerId: 'cus_\u0430lice' });
        const page = (await fx.call<Page>(`/api/v1/batch?threadId=${t}`, 'alice')).body;
        const ticked = page.items.filter((i) => page.notes[i.id]?.preselected).map((i) => i.id);
        if (fx === f) {
          assert.equal(page.preselectUpTo, 'none');
          assert.deepEqual(ticked, [], 'nothing ticked for the reviewer');
        } else {
          assert.equal(page.preselectUpTo, 'approve');
          assert.deepEqual(ticked, [clean.id], 'escalate-tier and warned requests are never ticked for the reviewer');
        }
        const note = (r: ApprovalRequest) => page.notes[r.id]!;
        assert.equal(note(huge).amount, 2500);
        assert.deepEqual(note(twinA).warnings, [
          {
            kind: 'same_subject',
            subject: { key: 'customerId', label: 'customer', value: 'cus_twice' },
            ids: [twinB.id],
          },
        ]);
        assert.deepEqual(note(spoof).warnings, [{ kind: 'lookalike', words: ['cus_\u0430lice'.slice(4)] }]);
      }
    });

    it('pages through 1,050 requests by the last one shown, with where each page stands', async () => {
      const verdict = await f.interlock.gate({ tool: 'wire_funds', args: { to: 'ACME', amount: 1 } });
      for (let t = 0; t < 21; t++) {
        const items = Array.from({ length: 50 }, (_, i) => ({
          call: { tool: 'wire_funds', args: { to: `ACME-${t * 50 + i}`, amount: 10 + i } },
          toolCallId: `call_${t}_${i}`,
          verdict,
        }));
        await f.interlock.pause({
          thread: { id: `wires-${backend.name}-${t}`, agent: 'support', agentVersion: '1' },
          items,
          proposer: 'agent:support',
        });
      }
      const seen = new Set<string>();
      let afterId: string | null = null;
      const pages: Array<Page['page']> = [];
      do {
        const url: string = `/api/v1/batch?tool=wire_funds${afterId ? `&after=${afterId}` : ''}`;
        const r = await f.call<Page>(url, 'carol');
        assert.equal(r.status, 200);
        for (const i of r.body.items) seen.add(i.id);
        pages.push(r.body.page);
        afterId = r.body.page.nextAfter;
        if (pages.length === 1) {
          // A request decided meanwhile still marks where the next page starts.
          const last = r.body.items[99]!;
          const items = [{ id: last.id, expectedVersion: last.version, actionHash: last.actionHash }];
          const d = await f.call('/api/v1/batch/decision', 'carol', {
            body: { type: 'approve', items, digest: batchDigest(items) },
          });
          assert.equal(d.status, 200);
        }
      } while (afterId);
      assert.equal(pages.length, 11);
      assert.deepEqual(pages[0], {
        from: 1,
        to: 100,
        total: 1050,
        totalIsLowerBound: false,
        nextAfter: pages[0]!.nextAfter,
      });
      assert.deepEqual(
        pages.slice(1).map((p) => [p.from, p.to, p.total]),
        [...Array.from({ length: 9 }, (_, i) => [(i + 1) * 100, (i + 2) * 100 - 1, 1049]), [1000, 1049, 1049]],
        'after the first page one request was approved: the rest move up by one, none is skipped',
      );
      assert.equal(seen.size, 1050, 'every request on exactly one page');
      const unknown = await f.call<{ error: { code: string } }>(
        '/api/v1/batch?tool=wire_funds&after=apr_nope',
        'carol',
      );
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, 'approval_request_not_found');
    });

    it('follows approved requests to their end: ran, failed with the tool’s error, cancelled', async () => {
      const made: ApprovalRequest[] = [];
      for (const a of [700, 800, 900, 950]) made.push(await f.pauseRefund(a));
      const [ran, failed, cancelled, left] = made as [
        ApprovalRequest,
        ApprovalRequest,
        ApprovalRequest,
        ApprovalRequest,
      ];
      const page = [ran, failed, cancelled, left].map((r) => ({
        id: r.id,
        expectedVersion: r.version,
        actionHash: r.actionHash,
      }));
      const items = page.map((i) => (i.id === left.id ? { ...i, skip: true } : i));
      const d = await f.call('/api/v1/batch/decision', 'alice', {
        body: { type: 'approve', items, digest: batchDigest(page) },
      });
      assert.equal(d.status, 200);
      const run = (r: ApprovalRequest, fn: () => Promise<unknown>) =>
        f.interlock.executeOnce(
          {
            key: idempotencyKey(r.id, r.actionHash),
            tool: r.tool,
            args: r.args,
            threadId: r.threadId,
            requestId: r.id,
          },
          fn,
        );
      await run(ran, async () => ({ refundId: 'RF-1' }));
      await run(failed, async () => {
        throw new Error('card declined by the bank');
      });
      await f.interlock.threads.cancelOpenRequests(cancelled.threadId, 'system:test', 'the conversation was aborted');
      const ids = [ran, failed, cancelled, left].map((r) => r.id).join(',');
      const got = await f.call<{ items: BatchOutcome[] }>(`/api/v1/batch/outcomes?ids=${ids}`, 'alice');
      assert.equal(got.status, 200);
      assert.deepEqual(
        got.body.items.map((o) => [o.stage, o.error ?? o.notRun ?? null, o.reason ?? null]),
        [
          ['ran', null, null],
          ['failed', 'card declined by the bank', null],
          ['not_run', 'cancelled', 'the conversation was aborted'],
          ['counting', null, null],
        ],
      );
      const other = await f.call<{ items: BatchOutcome[] }>(`/api/v1/batch/outcomes?ids=${ids}`, 'carol');
      assert.deepEqual(other.body.items, [], 'requests of other roles are left out');
      assert.equal((await f.call(`/api/v1/batch/outcomes?ids=`, 'alice')).status, 400);
      const many = Array.from({ length: 101 }, (_, i) => `apr_${i}`).join(',');
      assert.equal((await f.call(`/api/v1/batch/outcomes?ids=${many}`, 'alice')).status, 400);
    });
  });
}
