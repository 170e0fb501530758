/**
 * Claims, internal notes and required reject reasons over HTTP: who may claim and see claims, notes
 * kept apart from what the agent reads, and a reject without a required reason refused at the API.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { sseReader, type SseReader } from '../testing/http.ts';
import { guard, startServerFixture, type ServerFixture, type Who } from '../../test/support/server-fixture.ts';

type ClaimView = { requestId: string; reviewer: string; name: string; since: string; expiresAt: string; auto: boolean };
type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };

for (const backend of allBackends()) {
  describe(`claims, notes and reject reasons over HTTP on ${backend.name}`, () => {
    let f: ServerFixture;
    const open: SseReader[] = [];
    before(async () => {
      f = await startServerFixture(backend);
    });
    after(async () => {
      for (const r of open) await r.close();
      assert.deepEqual(f.logged, []);
      await f.close();
    });

    /** A refund paused under a rule that requires a reject reason and offers two. */
    async function pauseWithReasons() {
      const call = { tool: 'issue_refund', args: { orderId: `RR-${Math.random()}`, customerId: 'c1', amount: 800 } };
      const verdict = await f.interlock.gate(call);
      const { requests } = await f.interlock.pause({
        thread: { id: `rr-${backend.name}-${Math.random()}`, agent: 'support', agentVersion: '1' },
        items: [
          { call, verdict: { ...verdict, rejectReasons: { required: true, choices: ['Duplicate', 'Too much'] } } },
        ],
        proposer: 'agent:support',
      });
      return requests[0]!;
    }

    async function connect(who: Who): Promise<SseReader> {
      const res = await fetch(`${f.url}/api/v1/events`, { headers: { authorization: `Bearer ${f.tokens[who]}` } });
      const reader = sseReader(res);
      open.push(reader);
      await reader.nextEvent('ready', 2000);
      return reader;
    }

    it('a reject without a required reason is 422 reason_required; with one it lands', async () => {
      const req = await pauseWithReasons();
      const packet = await f.call<{ rejectReasons: unknown }>(`/api/v1/approvals/${req.id}`, 'alice');
      assert.deepEqual(packet.body.rejectReasons, { required: true, choices: ['Duplicate', 'Too much'] });
      const plain = await f.pauseRefund(700);
      const other = await f.call<{ rejectReasons: unknown }>(`/api/v1/approvals/${plain.id}`, 'alice');
      assert.equal(other.body.rejectReasons, null);

      const no = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/decision`, 'alice', {
        body: { type: 'reject', ...guard(req) },
      });
      assert.equal(no.status, 422);
      assert.equal(no.body.error.code, 'reason_required');
      assert.match(no.body.error.message, /needs a reason.*"Duplicate", "Too much"/);
      assert.equal((await f.interlock.getRequestOrThrow(req.id)).status, 'pending');
      const yes = await f.call<{ outcome: string }>(`/api/v1/approvals/${req.id}/decision`, 'alice', {
        body: { type: 'reject', message: 'Duplicate', ...guard(req) },
      });
      assert.equal(yes.status, 200);
      assert.equal(yes.body.outcome, 'rejected');
    });

    it('claims: one holder, shown to the request’s readers only, live, released by the holder', async () => {
      const req = await f.pauseRefund(900);
      const bobLive = await connect('bob');
      const carolLive = await connect('carol');
      const a = await f.call<{ claimed: boolean; claim: ClaimView; timeoutMs: number }>(
        `/api/v1/approvals/${req.id}/claim`,
        'alice',
        { body: {} },
      );
      assert.equal(a.status, 200);
      assert.equal(a.body.claimed, true);
      assert.equal(a.body.claim.name, 'alice');
      assert.equal(a.body.timeoutMs, 600_000, 'ten minutes unless configured');
      assert.equal(Date.parse(a.body.claim.expiresAt) - Date.parse(a.body.claim.since), 600_000);
      const live = JSON.parse((await bobLive.nextEvent('claim.changed', 3000)).data) as { claim: ClaimView };
      assert.equal(live.claim.reviewer, f.ids.alice);

      const b = await f.call<{ claimed: boolean; claim: ClaimView }>(`/api/v1/approvals/${req.id}/claim`, 'bob', {
        body: { auto: true },
      });
      assert.equal(b.body.claimed, false, 'opening the card leaves Alice’s claim');
      assert.equal(b.body.claim.name, 'alice');
      const list = await f.call<{ items: ClaimView[] }>('/api/v1/claims', 'bob');
      assert.ok(list.body.items.some((c) => c.requestId === req.id && c.reviewer === f.ids.alice));
      assert.equal((await f.call<{ items: ClaimView[] }>('/api/v1/claims', 'carol')).body.items.length, 0);
      assert.ok((await f.call<{ items: ClaimView[] }>('/api/v1/claims', 'olga')).body.items.length > 0);
      assert.equal((await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/claim`, 'carol')).status, 403);
      const carolClaims = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/claim`, 'carol', { body: {} });
      assert.equal(carolClaims.body.error.code, 'forbidden_role');
      const bad = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/claim`, 'bob', { body: { forever: true } });
      assert.equal(bad.status, 400);

      const notHers = await f.call<{ released: boolean }>(`/api/v1/approvals/${req.id}/claim/release`, 'bob', {
        body: {},
      });
      assert.equal(notHers.body.released, false);
      const released = await f.call<{ released: boolean }>(`/api/v1/approvals/${req.id}/claim/release`, 'alice', {
        body: {},
      });
      assert.equal(released.body.released, true);
      assert.equal((await f.call<{ claim: unknown }>(`/api/v1/approvals/${req.id}/claim`, 'bob')).body.claim, null);

      // Carol (finance) heard nothing of the supervisor request's claims; her first is her own role's.
      const wire = await f.pauseWire();
      await f.call(`/api/v1/approvals/${wire.id}/claim`, 'carol', { body: {} });
      const first = JSON.parse((await carolLive.nextEvent('claim.changed', 3000)).data) as { requestId: string };
      assert.equal(first.requestId, wire.id);
    });

    it('a claim never blocks a decision, and the decision ends it', async () => {
      const req = await f.pauseRefund(950);
      await f.call(`/api/v1/approvals/${req.id}/claim`, 'alice', { body: {} });
      const d = await f.call<{ outcome: string }>(`/api/v1/approvals/${req.id}/decision`, 'bob', {
        body: { type: 'approve', ...guard(req) },
      });
      assert.equal(d.body.outcome, 'authorized');
      assert.equal((await f.call<{ claim: unknown }>(`/api/v1/approvals/${req.id}/claim`, 'alice')).body.claim, null);
      const again = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/claim`, 'alice', { body: {} });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'already_resolved');
      // The card's own claim racing that decision is no error: nothing is left to claim.
      const auto = await f.call<{ claimed: boolean; claim: unknown }>(`/api/v1/approvals/${req.id}/claim`, 'alice', {
        body: { auto: true },
      });
      assert.equal(auto.status, 200);
      assert.deepEqual([auto.body.claimed, auto.body.claim], [false, null]);
    });

    it('notes: added and listed by the request’s readers, audited, absent from what the agent reads', async () => {
      const req = await f.pauseRefund(990);
      const added = await f.call<{ id: string; text: string; authorName: string; internal: boolean }>(
        `/api/v1/approvals/${req.id}/notes`,
        'alice',
        { body: { text: 'Called the customer — ask for the receipt first.' } },
      );
      assert.equal(added.status, 201);
      assert.equal(added.body.authorName, 'alice');
      assert.equal(added.body.internal, true);
      assert.equal(
        (await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/notes`, 'bob', { body: { text: ' ' } })).status,
        400,
      );
      assert.equal(
        (await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/notes`, 'carol', { body: { text: 'x' } })).status,
        403,
      );
      assert.equal((await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/notes`, 'carol')).status, 403);
      const list = await f.call<{ items: Array<{ text: string; author: string }> }>(
        `/api/v1/approvals/${req.id}/notes`,
        'bob',
      );
      assert.deepEqual(
        list.body.items.map((n) => [n.author, n.text]),
        [[f.ids.alice, 'Called the customer — ask for the receipt first.']],
      );
      const story = await f.call<{ events: Array<{ type: string; payload: Record<string, unknown> }> }>(
        `/api/v1/approvals/${req.id}/story`,
        'bob',
      );
      assert.equal(story.body.events.find((e) => e.type === 'note_added')?.payload.noteId, added.body.id);

      const d = await f.call<{ request: { resolution: { message?: string } } }>(
        `/api/v1/approvals/${req.id}/decision`,
        'bob',
        {
          body: { type: 'reject', message: 'Send the receipt, please.', ...guard(req) },
        },
      );
      assert.equal(d.body.request.resolution.message, 'Send the receipt, please.');
      const outcome = await f.interlock.requestOutcome(req.id);
      assert.equal(JSON.stringify(outcome).includes('Called the customer'), false, 'the agent reads no note');
    });

    it('documents the routes in /openapi.json', async () => {
      const r = await f.call<{ paths: Record<string, Record<string, unknown>> }>('/openapi.json', null);
      assert.ok(r.body.paths['/api/v1/claims']?.get);
      assert.ok(r.body.paths['/api/v1/approvals/{id}/claim']?.post);
      assert.ok(r.body.paths['/api/v1/approvals/{id}/claim/release']?.post);
      assert.ok(r.body.paths['/api/v1/approvals/{id}/notes']?.post);
    });
  });
}
