import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { guard, startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';

type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };

for (const backend of allBackends()) {
  describe(`a reviewer without the role learns nothing from a decision, on ${backend.name}`, () => {
    let f: ServerFixture;
    before(async () => {
      f = await startServerFixture(backend);
    });
    after(async () => {
      await f.close();
    });

    it('wrong version, wrong hash and a resolved request all answer the same 403 as GET, and each probe is audited', async () => {
      const req = await f.pauseRefund(900);
      const get = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}`, 'carol');
      assert.equal(get.status, 403);
      const probe = (body: Record<string, unknown>) =>
        f.call<ErrorBody>(`/api/v1/approvals/${req.id}/decision`, 'carol', { body });
      const answers = [
        await probe({ type: 'approve', ...guard(req), expectedVersion: 99 }),
        await probe({ type: 'approve', ...guard(req), actionHash: 'f'.repeat(64) }),
        await probe({ type: 'edit', ...guard(req), expectedVersion: 99, args: { ...req.args, amount: 1 } }),
      ];
      assert.equal(
        (await f.call(`/api/v1/approvals/${req.id}/decision`, 'alice', { body: { type: 'approve', ...guard(req) } }))
          .status,
        200,
      );
      answers.push(await probe({ type: 'reject', ...guard(req) }));
      for (const a of answers) {
        assert.equal(a.status, 403);
        assert.equal(a.body.error.code, get.body.error.code);
        assert.deepEqual(a.body.error.details, get.body.error.details, 'nothing beyond what GET says');
        const text = JSON.stringify(a.body);
        for (const leak of [
          'actualVersion',
          'actualHash',
          req.actionHash,
          'authorized',
          'stale_version',
          'action_hash_mismatch',
          'already_resolved',
        ]) {
          assert.ok(!text.includes(leak), `the answer does not reveal ${leak}: ${text}`);
        }
      }
      const refused = (await f.store.listAudit({ requestId: req.id })).filter((e) => e.type === 'refused');
      assert.equal(refused.length, 4, 'every probe is audited');
      assert.ok(refused.every((e) => e.payload.code === 'forbidden_role' && e.actor === `reviewer:${f.ids.carol}`));
    });
  });
}
