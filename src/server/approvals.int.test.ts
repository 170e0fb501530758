import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { guard, startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';

type ErrorBody = {
  error: {
    code: string;
    message: string;
    details?: { issues?: Array<{ path: string; message: string }> } & Record<string, unknown>;
  };
};
type Summary = {
  id: string;
  status: string;
  version: number;
  actionHash: string;
  tool: string;
  requiredRole: string;
  threadId: string;
  args: Record<string, unknown>;
};
type Page = { items: Summary[]; nextCursor: string | null };

for (const backend of allBackends()) {
  describe(`approvals API on ${backend.name}`, () => {
    let f: ServerFixture;
    before(async () => {
      f = await startServerFixture(backend);
    });
    after(async () => {
      assert.deepEqual(f.logged, [], 'no unexpected server errors');
      await f.close();
    });

    const decide = (id: string, who: 'alice' | 'bob' | 'carol' | 'olga', body: unknown) =>
      f.call<ErrorBody & { outcome: string; request: Summary; newRequestId?: string }>(
        `/api/v1/approvals/${id}/decision`,
        who,
        { body },
      );

    it('401 without a token, with a bad token, with a malformed header, with a revoked token', async () => {
      const none = await f.call<ErrorBody>('/api/v1/approvals', null);
      assert.equal(none.status, 401);
      assert.equal(none.body.error.code, 'unauthorized');
      assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
      const bad = await f.call<ErrorBody>('/api/v1/approvals', null, {
        headers: { authorization: `Bearer il_${'A'.repeat(43)}` },
      });
      assert.equal(bad.status, 401);
      assert.equal(bad.body.error.code, 'unauthorized');
      const garbage = await f.call<ErrorBody>('/api/v1/approvals', null, {
        headers: { authorization: 'Bearer not-a-token' },
      });
      assert.equal(garbage.status, 401);
      const basic = await f.call<ErrorBody>('/api/v1/approvals', null, {
        headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' },
      });
      assert.equal(basic.status, 401);
      const revoked = await f.call<ErrorBody>('/api/v1/approvals', 'revoked');
      assert.equal(revoked.status, 401);
      assert.equal(revoked.body.error.code, 'token_revoked');
      const req = await f.pauseRefund(800);
      const decision = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/decision`, 'revoked', {
        body: { type: 'approve', ...guard(req) },
      });
      assert.equal(decision.status, 401, 'a revoked reviewer cannot decide');
      assert.equal((await f.interlock.getRequestOrThrow(req.id)).status, 'pending');
    });

    it('refuses tokens in the query string', async () => {
      const r = await f.call<ErrorBody>(`/api/v1/approvals?token=${f.tokens.alice}`, null);
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, 'invalid_input');
    });

    it('stores only the hash of a token', async () => {
      const rows = await f.store.listReviewers();
      assert.ok(rows.length >= 5);
      for (const r of rows) assert.match(r.tokenHash, /^[0-9a-f]{64}$/);
      assert.ok(!rows.some((r) => Object.values(f.tokens).includes(r.tokenHash)));
      assert.match(f.tokens.alice, /^il_[A-Za-z0-9_-]{43}$/);
    });

    it('serves the review packet: schema of the args, untrusted redacted evidence, allowed decisions per viewer', async () => {
      const req = await f.pauseRefund(800);
      const r = await f.call<
        Record<string, unknown> & {
          untrusted: { evidence: Record<string, string> };
          argsSchema: { properties: Record<string, unknown> };
          allowedDecisions: string[];
        }
      >(`/api/v1/approvals/${req.id}`, 'alice');
      assert.equal(r.status, 200);
      const p = r.body;
      assert.equal(p.tool, 'issue_refund');
      assert.deepEqual(p.args, req.args);
      assert.equal(p.reason, 'refund over $500');
      assert.equal(p.ruleId, 'large');
      assert.equal(p.tier, 'approve');
      assert.equal(p.requiredRole, 'supervisor');
      assert.equal(p.approvalsRequired, 1);
      assert.equal(p.approvalsReceived, 0);
      assert.equal(p.status, 'pending');
      assert.equal(p.version, 1);
      assert.equal(p.actionHash, req.actionHash);
      assert.equal(p.createdAt, new Date(req.createdAt).toISOString());
      assert.equal(p.expiresAt, new Date(req.expiresAt).toISOString());
      assert.equal(p.onTimeout, 'reject');
      assert.equal(p.resolution, null);
      assert.equal(p.supersededBy, null);
      assert.deepEqual(Object.keys(p.argsSchema.properties).sort(), ['amount', 'customerId', 'orderId']);
      assert.equal(
        p.untrusted.evidence.customerMessage,
        'Refund me now! <script>alert(1)</script> mail j***@example.com',
        'redacted, and returned as data, not markup',
      );
      assert.equal('evidence' in p, false, 'evidence appears only under untrusted');
      assert.equal('context' in p, false, 'the policy context stays on the server');
      assert.deepEqual(p.allowedDecisions, ['approve', 'edit', 'reject', 'respond']);
      // The operator reads it but holds no supervisor role: no decisions for them.
      const asOperator = await f.call<{ allowedDecisions: string[] }>(`/api/v1/approvals/${req.id}`, 'olga');
      assert.equal(asOperator.status, 200);
      assert.deepEqual(asOperator.body.allowedDecisions, []);
      // Another role cannot read it.
      const asCarol = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}`, 'carol');
      assert.equal(asCarol.status, 403);
      assert.equal(asCarol.body.error.code, 'forbidden_role');
    });

    it('404 for unknown requests and unknown routes', async () => {
      const r = await f.call<ErrorBody>('/api/v1/approvals/apr_nope', 'alice');
      assert.equal(r.status, 404);
      assert.equal(r.body.error.code, 'approval_request_not_found');
      const d = await decide('apr_nope', 'alice', { type: 'approve', expectedVersion: 1, actionHash: 'x' });
      assert.equal(d.status, 404);
      const s = await f.call<ErrorBody>('/api/v1/approvals/apr_nope/story', 'alice');
      assert.equal(s.status, 404);
      const route = await f.call<ErrorBody>('/api/v1/nothing-here', 'alice');
      assert.equal(route.status, 404);
      assert.equal(route.body.error.code, 'not_found');
      const outside = await f.call<ErrorBody>('/nothing-here', null);
      assert.equal(outside.status, 404);
      assert.equal(outside.body.error.code, 'not_found');
    });

    it('approves (200), then refuses a second decision with 409 already_resolved', async () => {
      const req = await f.pauseRefund(800);
      const ok = await decide(req.id, 'alice', { type: 'approve', ...guard(req) });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.outcome, 'authorized');
      assert.equal(ok.body.request.status, 'authorized');
      assert.equal(ok.body.request.version, 2);
      assert.equal(ok.body.newRequestId, undefined);
      const again = await decide(req.id, 'bob', { type: 'reject', expectedVersion: 2, actionHash: req.actionHash });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'already_resolved');
      const packet = await f.call<{ allowedDecisions: string[]; resolution: { type: string; at: string } }>(
        `/api/v1/approvals/${req.id}`,
        'bob',
      );
      assert.deepEqual(packet.body.allowedDecisions, []);
      assert.equal(packet.body.resolution.type, 'approve');
      assert.equal(packet.body.resolution.at, new Date(f.clock.now()).toISOString());
    });

    it('409 stale_version and action_hash_mismatch change nothing', async () => {
      const req = await f.pauseRefund(800);
      const stale = await decide(req.id, 'alice', { type: 'approve', expectedVersion: 7, actionHash: req.actionHash });
      assert.equal(stale.status, 409);
      assert.equal(stale.body.error.code, 'stale_version');
      assert.equal(stale.body.error.details?.actualVersion, 1);
      const hash = await decide(req.id, 'alice', { type: 'approve', expectedVersion: 1, actionHash: 'f'.repeat(64) });
      assert.equal(hash.status, 409);
      assert.equal(hash.body.error.code, 'action_hash_mismatch');
      assert.equal((await f.interlock.getRequestOrThrow(req.id)).version, 1);
    });

    it('403 forbidden_role, self_approval and duplicate_reviewer', async () => {
      const req = await f.pauseRefund(800);
      const role = await decide(req.id, 'carol', { type: 'approve', ...guard(req) });
      assert.equal(role.status, 403);
      assert.equal(role.body.error.code, 'forbidden_role');
      const operator = await decide(req.id, 'olga', { type: 'approve', ...guard(req) });
      assert.equal(operator.status, 403, 'reading everything is not deciding everything');

      const own = await f.pauseRefund(800, { proposer: f.ids.alice });
      const self = await decide(own.id, 'alice', { type: 'approve', ...guard(own) });
      assert.equal(self.status, 403);
      assert.equal(self.body.error.code, 'self_approval');

      const quorum = await f.pauseRefund(2500);
      assert.equal(quorum.approvalsRequired, 2);
      const first = await decide(quorum.id, 'alice', { type: 'approve', ...guard(quorum) });
      assert.equal(first.status, 200);
      assert.equal(first.body.outcome, 'pending');
      const dup = await decide(quorum.id, 'alice', {
        type: 'approve',
        expectedVersion: 2,
        actionHash: quorum.actionHash,
      });
      assert.equal(dup.status, 403);
      assert.equal(dup.body.error.code, 'duplicate_reviewer');
      const packet = await f.call<{ approvedBy: string[]; allowedDecisions: string[] }>(
        `/api/v1/approvals/${quorum.id}`,
        'alice',
      );
      assert.deepEqual(packet.body.approvedBy, [f.ids.alice]);
      assert.deepEqual(
        packet.body.allowedDecisions,
        ['edit', 'reject', 'respond'],
        'alice already approved: she may change her mind, not approve twice',
      );
      const second = await decide(quorum.id, 'bob', {
        type: 'approve',
        expectedVersion: 2,
        actionHash: quorum.actionHash,
      });
      assert.equal(second.body.outcome, 'authorized');
    });

    it('400 with per-field issues: bad JSON, unknown fields, wrong types, missing edit args, invalid edited args', async () => {
      const req = await f.pauseRefund(800);
      const url = `/api/v1/approvals/${req.id}/decision`;
      const notJson = await f.call<ErrorBody>(url, 'alice', {
        rawBody: '{"type": "approve",',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(notJson.status, 400);
      assert.equal(notJson.body.error.code, 'invalid_input');

      const wrong = await decide(req.id, 'alice', {
        type: 'maybe',
        expectedVersion: '1',
        actionHash: req.actionHash,
        extra: true,
      });
      assert.equal(wrong.status, 400);
      const paths = wrong.body.error.details?.issues?.map((i) => i.path).sort();
      assert.deepEqual(paths, ['(root)', 'expectedVersion', 'type'], JSON.stringify(wrong.body));

      const noArgs = await decide(req.id, 'alice', { type: 'edit', ...guard(req) });
      assert.equal(noArgs.status, 400);
      assert.deepEqual(
        noArgs.body.error.details?.issues?.map((i) => i.path),
        ['args'],
      );

      const badArgs = await decide(req.id, 'alice', {
        type: 'edit',
        ...guard(req),
        args: { orderId: 'ORD-1', customerId: 'c1', amount: -5, extra: 1 },
      });
      assert.equal(badArgs.status, 400);
      assert.equal(badArgs.body.error.code, 'invalid_input');
      const issues = badArgs.body.error.details?.issues ?? [];
      assert.ok(
        issues.some((i) => i.path === 'args.amount'),
        JSON.stringify(issues),
      );
      assert.ok(
        issues.some((i) => i.path === 'args'),
        'the unknown key is named too',
      );
      assert.equal((await f.interlock.getRequestOrThrow(req.id)).status, 'pending', 'invalid input changed nothing');
    });

    it('edits: a valid edit is authorized with the new args; an edit that raises the tier becomes a new request', async () => {
      const req = await f.pauseRefund(800);
      const edited = await decide(req.id, 'alice', { type: 'edit', ...guard(req), args: { ...req.args, amount: 600 } });
      assert.equal(edited.status, 200);
      assert.equal(edited.body.outcome, 'authorized');
      assert.equal(edited.body.request.args.amount, 600);

      const r2 = await f.pauseRefund(800);
      const raised = await decide(r2.id, 'alice', { type: 'edit', ...guard(r2), args: { ...r2.args, amount: 3000 } });
      assert.equal(raised.status, 200);
      assert.equal(raised.body.outcome, 'superseded');
      assert.ok(raised.body.newRequestId);
      const next = await f.call<{ approvalsRequired: number; parentId: string }>(
        `/api/v1/approvals/${raised.body.newRequestId}`,
        'bob',
      );
      assert.equal(next.body.approvalsRequired, 2);
      assert.equal(next.body.parentId, r2.id);
      const old = await f.call<{ supersededBy: string }>(`/api/v1/approvals/${r2.id}`, 'bob');
      assert.equal(old.body.supersededBy, raised.body.newRequestId);
    });

    it('reject and respond carry the message', async () => {
      const a = await f.pauseRefund(800);
      const rej = await decide(a.id, 'bob', { type: 'reject', ...guard(a), message: 'offer store credit' });
      assert.equal(rej.body.outcome, 'rejected');
      const b = await f.pauseRefund(800);
      const resp = await decide(b.id, 'bob', { type: 'respond', ...guard(b), message: 'already refunded by phone' });
      assert.equal(resp.body.outcome, 'responded');
    });

    it('410 request_expired once the request is past its expiry', async () => {
      const req = await f.pauseRefund(800);
      f.clock.advance(31 * 60_000);
      const r = await decide(req.id, 'alice', { type: 'approve', ...guard(req) });
      assert.equal(r.status, 410);
      assert.equal(r.body.error.code, 'request_expired');
      const packet = await f.call<{ allowedDecisions: string[]; status: string }>(
        `/api/v1/approvals/${req.id}`,
        'alice',
      );
      assert.equal(packet.body.status, 'pending', 'the sweeper has not run yet');
      assert.deepEqual(packet.body.allowedDecisions, [], 'but nothing can be decided');
      await f.interlock.expireDue();
    });

    it('413 for a body over 64 KiB, with or without Content-Length', async () => {
      const req = await f.pauseRefund(800);
      const big = { type: 'reject', ...guard(req), message: 'x'.repeat(70 * 1024) };
      const r = await decide(req.id, 'alice', big);
      assert.equal(r.status, 413);
      assert.equal(r.body.error.code, 'payload_too_large');
      const text = JSON.stringify(big);
      const chunked = new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(text);
          for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.subarray(i, i + 8192));
          controller.close();
        },
      });
      const s = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/decision`, 'alice', {
        rawBody: chunked,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(s.status, 413);
      assert.equal(s.body.error.code, 'payload_too_large');
      assert.equal((await f.interlock.getRequestOrThrow(req.id)).status, 'pending');
    });

    it('the story tells what was proposed, who decided, what ran', async () => {
      const req = await f.pauseRefund(800);
      await decide(req.id, 'alice', { type: 'approve', ...guard(req) });
      await f.interlock.executeOnce(
        {
          key: `${req.id}:${req.actionHash}`,
          tool: req.tool,
          args: req.args,
          requestId: req.id,
          threadId: req.threadId,
        },
        async () => ({ refundId: 'rf_1' }),
      );
      const s = await f.call<{
        request: Summary;
        proposed: { tool: string };
        decisions: Array<{ type: string; by: string }>;
        executions: unknown[];
      }>(`/api/v1/approvals/${req.id}/story`, 'bob');
      assert.equal(s.status, 200);
      assert.equal(s.body.proposed.tool, 'issue_refund');
      assert.deepEqual(
        s.body.decisions.map((d) => [d.type, d.by]),
        [['approved', `reviewer:${f.ids.alice}`]],
      );
      assert.equal(s.body.executions.length, 1);
      assert.equal(s.body.request.status, 'executed');
      assert.equal((await f.call(`/api/v1/approvals/${req.id}/story`, 'carol')).status, 403);
    });
  });

  describe(`approval queue listing on ${backend.name}`, () => {
    let f: ServerFixture;
    const threadId = `list-${backend.name}-${Date.now()}`;
    before(async () => {
      f = await startServerFixture(backend);
      for (let i = 0; i < 5; i++) {
        await f.pauseRefund(600 + i, { threadId });
        f.clock.advance(1000);
      }
      await f.pauseWire();
      f.clock.advance(1000);
      const decided = await f.pauseRefund(900);
      await f.interlock.decide(
        decided.id,
        { type: 'reject', ...guard(decided), message: 'no' },
        { id: f.ids.bob, roles: ['supervisor'] },
      );
    });
    after(async () => {
      assert.deepEqual(f.logged, []);
      await f.close();
    });

    const list = (q: string, who: 'alice' | 'carol' | 'olga' = 'alice') =>
      f.call<Page & ErrorBody>(`/api/v1/approvals${q}`, who);

    it('shows non-operators only their roles; operators everything', async () => {
      const alice = await list('');
      assert.equal(alice.status, 200);
      assert.equal(alice.body.items.length, 6);
      assert.ok(alice.body.items.every((r) => r.requiredRole === 'supervisor'));
      const carol = await list('', 'carol');
      assert.deepEqual(
        carol.body.items.map((r) => r.tool),
        ['wire_funds'],
      );
      const olga = await list('', 'olga');
      assert.equal(olga.body.items.length, 7);
      assert.equal((await list('?role=finance')).body.items.length, 0, 'asking for another role shows nothing');
      assert.equal((await list('?role=finance', 'olga')).body.items.length, 1);
    });

    it('filters by status, tool and thread', async () => {
      assert.equal((await list('?status=pending')).body.items.length, 5);
      assert.equal((await list('?status=rejected')).body.items.length, 1);
      assert.equal((await list('?tool=wire_funds', 'olga')).body.items.length, 1);
      const byThread = await list(`?threadId=${threadId}`);
      assert.equal(byThread.body.items.length, 5);
      assert.ok(byThread.body.items.every((r) => r.threadId === threadId));
    });

    it('pages with limit and cursor, newest first or soonest expiry first', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r: Awaited<ReturnType<typeof list>> = await list(
          `?status=pending&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(r.status, 200);
        seen.push(...r.body.items.map((i) => i.id));
        cursor = r.body.nextCursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      assert.equal(new Set(seen).size, 5);
      const all = (await list('?status=pending')).body.items.map((i) => i.id);
      assert.deepEqual(seen, all, 'pages join up in order');
      const byExpiry = (await list('?status=pending&order=expiry')).body.items.map((i) => i.id);
      assert.deepEqual(byExpiry, [...all].reverse(), 'soonest expiry first');
    });

    it('400 for a bad query', async () => {
      for (const q of ['?limit=abc', '?limit=0', '?order=random', '?status=lost', '?color=blue', '?cursor=bm9wZQ']) {
        const r = await list(q);
        assert.equal(r.status, 400, q);
        assert.equal(r.body.error.code, 'invalid_input', q);
      }
      const r = await list('?limit=abc&order=random');
      assert.deepEqual(r.body.error.details?.issues?.map((i) => i.path).sort(), ['query.limit', 'query.order']);
    });
  });

  describe(`decision rate limit on ${backend.name}`, () => {
    let f: ServerFixture;
    before(async () => {
      f = await startServerFixture(backend, { rateLimit: { capacity: 3, windowMs: 60_000 } });
    });
    after(() => f.close());

    it('429 rate_limited after the burst, per reviewer, with Retry-After', async () => {
      const req = await f.pauseRefund(800);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (
            await f.call(`/api/v1/approvals/${req.id}/decision`, 'alice', {
              body: { type: 'approve', expectedVersion: 99, actionHash: req.actionHash },
            })
          ).status,
        );
      assert.deepEqual(statuses, [409, 409, 409, 429]);
      const limited = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/decision`, 'alice', {
        body: { type: 'approve', ...guard(req) },
      });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error.code, 'rate_limited');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      assert.equal(
        (await f.interlock.getRequestOrThrow(req.id)).status,
        'pending',
        'the limited decision did not land',
      );
      const bob = await f.call<{ outcome: string }>(`/api/v1/approvals/${req.id}/decision`, 'bob', {
        body: { type: 'approve', ...guard(req) },
      });
      assert.equal(bob.status, 200, 'another reviewer has their own bucket');
      assert.equal((await f.call('/api/v1/approvals', 'alice')).status, 200, 'reads are not limited');
    });
  });
}
