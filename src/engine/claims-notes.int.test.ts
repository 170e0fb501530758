import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { createInterlock, type Interlock } from './interlock.ts';
import type { EngineEvent } from './context.ts';
import { definePolicy, type ApprovalRequest, type PolicyConfig, type Reviewer } from '../core/index.ts';

const refundSchema = z.object({ orderId: z.string(), amount: z.number().positive() });
const CHOICES = ['Duplicate request', 'Amount over the order total'];
const pctx = { now: new Date(), app: {}, aggregates: {} };

const policy: PolicyConfig = {
  tools: {
    issue_refund: [
      {
        id: 'refund',
        tier: 'approve',
        role: 'support',
        reason: 'every refund',
        rejectReasons: { required: true, choices: CHOICES },
      },
      {
        id: 'big-refund',
        tier: 'escalate',
        role: 'support',
        reason: 'over $1,000',
        when: ({ args }) => Number(args.amount) > 1000,
        timeout: '1h',
        onTimeout: 'escalate',
        escalateTo: { role: 'finance' },
        rejectReasons: { required: true },
      },
    ],
    send_email: [{ id: 'email', tier: 'approve', role: 'support', reason: 'every email' }],
  },
};

const dana: Reviewer = { id: 'dana', name: 'Dana Reviewer', roles: ['support'] };
const sue: Reviewer = { id: 'sue', name: 'Sue Supervisor', roles: ['support'] };
const fin: Reviewer = { id: 'fin', name: 'Fin Ance', roles: ['finance'] };

describe('a rule’s reject reasons, as definePolicy checks them', () => {
  it('takes required and choices; refuses blank choices and unknown fields, naming the field', () => {
    const p = definePolicy(policy);
    const v = p.evaluate({ tool: 'issue_refund', args: { orderId: 'A', amount: 5 } }, pctx);
    assert.deepEqual(v.rejectReasons, { required: true, choices: CHOICES });
    const none = p.evaluate({ tool: 'send_email', args: {} }, pctx);
    assert.equal(none.rejectReasons, undefined);
    const rule = (rejectReasons: unknown) => ({
      tools: { t: [{ id: 'x', tier: 'approve' as const, role: 'r', reason: 'r', rejectReasons }] },
    });
    assert.throws(
      () => definePolicy(rule({ choices: ['  '] }) as PolicyConfig),
      /rejectReasons\.choices\.0: a reject reason must not be blank/,
    );
    assert.throws(() => definePolicy(rule({ require: true }) as PolicyConfig), /rejectReasons/);
    assert.deepEqual(
      definePolicy(rule({ choices: [' Dup ', 'Dup'] }) as PolicyConfig).evaluate({ tool: 't', args: {} }, pctx)
        .rejectReasons,
      { required: false, choices: ['Dup'] },
    );
  });
});

for (const backend of allBackends()) {
  describe(`claims, internal notes and reject reasons on ${backend.name}`, () => {
    let il: Interlock;
    let n = 0;
    const clock = manualClock(Date.now());
    const events: EngineEvent[] = [];
    before(async () => {
      il = createInterlock({
        store: await backend.create(),
        policy,
        tools: { issue_refund: { schema: refundSchema } },
        now: clock.now,
        claimMs: 60_000,
      });
      il.on((e) => events.push(e));
    });
    after(() => backend.destroy());

    async function pause(amount = 90, tool = 'issue_refund'): Promise<ApprovalRequest> {
      const call = { tool, args: { orderId: `CN-${++n}`, amount } };
      const { requests } = await il.pause({
        thread: { id: `cn-${backend.name}-${n}`, agent: 'support', agentVersion: '1' },
        checkpoint: { newMessages: [], state: {}, schemaVersion: 1 },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: 'agent:support',
      });
      return requests[0]!;
    }
    const reject = (r: ApprovalRequest, who: Reviewer, message?: string) =>
      il.decide(
        r.id,
        {
          type: 'reject',
          expectedVersion: r.version,
          actionHash: r.actionHash,
          ...(message !== undefined && { message }),
        },
        who,
      );

    describe('required reject reasons', () => {
      it('the request keeps its rule’s reasons; a rule without them keeps none', async () => {
        const req = await pause();
        assert.deepEqual((await il.getRequestOrThrow(req.id)).rejectReasons, { required: true, choices: CHOICES });
        const email = await pause(1, 'send_email');
        assert.equal((await il.getRequestOrThrow(email.id)).rejectReasons, undefined);
        assert.equal((await reject(email, dana)).outcome, 'rejected', 'a reason stays optional without the rule field');
      });

      it('a reject without a reason (or a blank one) is refused with reason_required and changes nothing', async () => {
        const req = await pause();
        for (const message of [undefined, '', '   \n'])
          await assert.rejects(
            reject(req, dana, message),
            (e: Error & { code?: string; details?: { choices?: string[] } }) => {
              assert.equal(e.code, 'reason_required');
              assert.match(e.message, /needs a reason/);
              assert.match(e.message, /"Duplicate request"/, 'the message names the choices');
              assert.deepEqual(e.details?.choices, CHOICES);
              return true;
            },
          );
        const still = await il.getRequestOrThrow(req.id);
        assert.equal(still.status, 'pending');
        assert.equal(still.version, req.version);
        const ok = await reject(req, dana, CHOICES[0]);
        assert.equal(ok.outcome, 'rejected');
        assert.equal(ok.request.resolution?.message, CHOICES[0]);
      });

      it('an approval needs no reason', async () => {
        const req = await pause();
        const r = await il.decide(
          req.id,
          { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
          dana,
        );
        assert.equal(r.outcome, 'authorized');
      });

      it('a request escalated after its timeout keeps the rule’s reasons', async () => {
        const req = await pause(5000);
        assert.deepEqual(req.rejectReasons, { required: true, choices: [] });
        clock.advance(2 * 3600_000);
        await il.expireDue();
        const next = (await il.listRequests({ threadId: req.threadId, status: 'pending' })).items[0]!;
        assert.equal(next.role, 'finance');
        assert.deepEqual(next.rejectReasons, { required: true, choices: [] });
        await assert.rejects(reject(next, fin), { code: 'reason_required' });
      });
    });

    describe('claims', () => {
      it('one holder at a time: others see it, keep theirs unless they take over; renewing keeps since', async () => {
        const req = await pause();
        events.length = 0;
        const a = await il.claims.claim(req.id, dana);
        assert.equal(a.claimed, true);
        assert.equal(a.claim.name, 'Dana Reviewer');
        assert.equal(a.claim.expiresAt, clock.now() + 60_000);
        assert.deepEqual(
          events.map((e) => e.type === 'claim.changed' && e.claim?.name),
          ['Dana Reviewer'],
          'the claim is a live event',
        );
        const b = await il.claims.claim(req.id, sue, { auto: true });
        assert.equal(b.claimed, false, 'opening a claimed card does not take it');
        assert.equal(b.claim.reviewer, 'dana');
        clock.advance(20_000);
        const renewed = await il.claims.claim(req.id, dana, { auto: true });
        assert.equal(renewed.claimed, true);
        assert.equal(renewed.claim.since, a.claim.since, 'a renewal keeps when they started');
        assert.equal(renewed.claim.auto, false, 'a claim by hand stays one when the card re-opens');
        assert.equal(renewed.claim.expiresAt, clock.now() + 60_000);
        const taken = await il.claims.claim(req.id, sue, { takeOver: true });
        assert.equal(taken.claimed, true);
        assert.equal((await il.claims.get(req.id))?.reviewer, 'sue');
        assert.equal(taken.claim.since, clock.now());
      });

      it('two reviewers claiming at once: one holds it, the other is told who', async () => {
        const req = await pause();
        const [a, b] = await Promise.all([il.claims.claim(req.id, dana), il.claims.claim(req.id, sue)]);
        assert.equal([a, b].filter((r) => r.claimed).length, 1);
        assert.equal(a.claim.reviewer, b.claim.reviewer);
      });

      it('is released by its holder only, lapses after its timeout, and ends with the decision', async () => {
        const req = await pause();
        await il.claims.claim(req.id, dana);
        assert.equal(await il.claims.release(req.id, 'sue'), false, 'never someone else’s');
        events.length = 0;
        assert.equal(await il.claims.release(req.id, 'dana'), true);
        assert.deepEqual(
          events.map((e) => (e.type === 'claim.changed' ? e.claim : 'other')),
          [null],
        );
        assert.equal(await il.claims.get(req.id), undefined);

        await il.claims.claim(req.id, dana);
        clock.advance(60_001);
        assert.equal(await il.claims.get(req.id), undefined, 'lapsed');
        assert.equal((await il.claims.claim(req.id, sue, { auto: true })).claimed, true, 'a lapsed claim is free');

        // Advisory: Dana decides while Sue holds it; afterwards there is no claim to show.
        await reject(req, dana, 'Duplicate request');
        assert.equal(await il.claims.get(req.id), undefined);
        assert.equal(
          (await il.claims.list(['support'])).some((c) => c.requestId === req.id),
          false,
        );
        await assert.rejects(il.claims.claim(req.id, sue), { code: 'already_resolved' });
      });

      it('is for those who may decide: another role or the proposer is refused', async () => {
        const req = await pause();
        await assert.rejects(il.claims.claim(req.id, fin), { code: 'forbidden_role' });
        await assert.rejects(il.claims.claim(req.id, { id: 'agent:support', roles: ['support'] }), {
          code: 'self_approval',
        });
        await assert.rejects(il.claims.claim('apr_nope', dana), { code: 'approval_request_not_found' });
      });

      it('lists live claims by role', async () => {
        const req = await pause();
        await il.claims.claim(req.id, dana);
        const mine = await il.claims.list(['support']);
        assert.ok(mine.some((c) => c.requestId === req.id && c.role === 'support' && c.reviewer === 'dana'));
        assert.equal(
          (await il.claims.list(['finance'])).some((c) => c.requestId === req.id),
          false,
        );
        assert.deepEqual(await il.claims.list([]), []);
        assert.ok(
          (await il.claims.list()).some((c) => c.requestId === req.id),
          'all roles for operators',
        );
      });
    });

    describe('internal notes', () => {
      it('are kept with their author and time, audited as note_added, and never reach the decision', async () => {
        const req = await pause();
        events.length = 0;
        const note = await il.notes.add(req.id, dana, '  Customer called: refund already promised by phone.  ');
        assert.equal(note.text, 'Customer called: refund already promised by phone.');
        assert.equal(note.authorName, 'Dana Reviewer');
        assert.equal(note.createdAt, clock.now());
        await il.notes.add(req.id, sue, 'Checked the order: it is a duplicate.');
        assert.deepEqual(
          (await il.notes.list(req.id)).map((x) => [x.author, x.text]),
          [
            ['dana', 'Customer called: refund already promised by phone.'],
            ['sue', 'Checked the order: it is a duplicate.'],
          ],
        );
        const noted = events.filter((e) => e.type === 'note.added');
        assert.equal(noted.length, 2);
        assert.equal(JSON.stringify(noted).includes('promised by phone'), false, 'events carry no note text');
        const audit = (await il.audit.listAudit({ requestId: req.id })).filter((e) => e.type === 'note_added');
        assert.deepEqual(
          audit.map((e) => [e.actor, e.payload.noteId, e.payload.text]),
          [
            ['reviewer:dana', note.id, note.text],
            ['reviewer:sue', (await il.notes.list(req.id))[1]!.id, 'Checked the order: it is a duplicate.'],
          ],
        );
        assert.equal((await il.verifyAudit()).ok, true);
        const r = await reject(req, sue, 'Duplicate request');
        assert.equal(r.request.resolution?.message, 'Duplicate request');
        const outcome = await il.requestOutcome(req.id);
        assert.equal(JSON.stringify(outcome).includes('promised by phone'), false, 'the agent reads no note');
      });

      it('refuses a blank or overlong note, and a request that does not exist', async () => {
        const req = await pause();
        await assert.rejects(il.notes.add(req.id, dana, '   '), { code: 'invalid_input' });
        await assert.rejects(il.notes.add(req.id, dana, 'x'.repeat(2001)), /at most 2000 characters/);
        await assert.rejects(il.notes.add('apr_nope', dana, 'hello'), { code: 'approval_request_not_found' });
        assert.deepEqual(await il.notes.list(req.id), []);
      });
    });
  });
}
