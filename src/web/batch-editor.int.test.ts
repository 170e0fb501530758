import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { guard, startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';
import { batchDigest } from './batch-digest.ts';
import { createWebUi } from './web-ui.ts';

type Answer = { results: Array<{ id: string; ok: boolean; outcome?: string; error?: { code: string } }> };

for (const backend of allBackends()) {
  describe(`batch approval of a request an edit created, on ${backend.name}`, () => {
    let f: ServerFixture;
    before(async () => {
      f = await startServerFixture(backend, { ui: createWebUi() });
    });
    after(async () => {
      assert.deepEqual(f.logged, [], 'no unexpected server errors');
      await f.close();
    });

    it('the editor cannot approve it in a batch (self_approval); another reviewer can', async () => {
      const threadId = `batch-edit-${backend.name}`;
      const req = await f.pauseRefund(850, { threadId });
      const edited = await f.call<{ outcome: string; newRequestId: string }>(
        `/api/v1/approvals/${req.id}/decision`,
        'alice',
        {
          body: { type: 'edit', args: { ...req.args, amount: 2500 }, ...guard(req) },
        },
      );
      assert.equal(edited.status, 200);
      assert.equal(edited.body.outcome, 'superseded', 'the edit raised the tier');
      const created = (await f.interlock.getRequest(edited.body.newRequestId))!;

      const shown = await f.call<{ items: unknown[]; excluded: Array<{ id: string; reason: string }> }>(
        `/api/v1/batch?threadId=${threadId}`,
        'alice',
      );
      assert.deepEqual(shown.body.items, []);
      assert.deepEqual(
        shown.body.excluded.map((e) => e.id),
        [created.id],
      );

      const items = [{ id: created.id, expectedVersion: created.version, actionHash: created.actionHash }];
      const mine = await f.call<Answer>('/api/v1/batch/decision', 'alice', {
        body: { type: 'approve', items, digest: batchDigest(items) },
      });
      assert.equal(mine.status, 200);
      assert.equal(mine.body.results[0]?.ok, false);
      assert.equal(mine.body.results[0]?.error?.code, 'self_approval');
      assert.equal((await f.interlock.getRequest(created.id))?.approvalsReceived, 0, 'the refusal counted nothing');

      const bobs = await f.call<Answer>('/api/v1/batch/decision', 'bob', {
        body: { type: 'approve', items, digest: batchDigest(items) },
      });
      assert.equal(bobs.body.results[0]?.ok, true);
      assert.equal(bobs.body.results[0]?.outcome, 'pending', 'one of two approvals');
    });
  });
}
