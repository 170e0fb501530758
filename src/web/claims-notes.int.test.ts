/**
 * Two reviewers on one request, in Chromium against a real service, on both backends: Sue's queue
 * shows live that Sam is looking at it; Sam's internal note reaches Sue's card live and is absent
 * from what the agent reads; Sue's decision asks "Sam Supervisor is looking at this — decide
 * anyway?"; a reject whose rule requires a reason is refused without one and lands with a canned
 * choice; the decision ends Sam's claim on his screen.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { notRunText } from '../engine/index.ts';
import { fetchJson } from '../testing/http.ts';
import { closeUiSuite, newPage, signInAs, startUiSuite, type UiWorld } from '../../test/support/browser-fixture.ts';

/** A thread whose agent no worker runs: the test reads what the agent would be told. */
const AGENT = 'claims-notes';
const CHOICES = ['Duplicate request', 'Amount over the order total'];
const NOTE = 'Called the customer: this refund was already promised by phone.';

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`claims, internal notes and reject reasons in Chromium on ${backend}`, () => {
    let w: UiWorld;
    let browser: Browser;
    before(async () => ([w, browser] = await startUiSuite(backend)));
    after(() => closeUiSuite(browser, w));

    /** A refund paused under a rule that requires a reason to reject and offers two. */
    async function pauseRefund() {
      const il = w.svc.interlock;
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-321', customerId: 'test-001', amount: 730 } };
      const verdict = await il.gate(call);
      const { requests } = await il.pause({
        thread: { id: `claims-notes-${backend}`, agent: AGENT, agentVersion: '1' },
        items: [{ call, verdict: { ...verdict, rejectReasons: { required: true, choices: CHOICES } } }],
        proposer: `agent:${AGENT}`,
      });
      return requests[0]!;
    }

    it('B sees A’s claim and note live; a required reject reason is asked for; the agent reads no note', async () => {
      const req = await pauseRefund();
      const sam = await newPage(browser);
      const sue = await newPage(browser);

      // Sue works the queue: nobody is looking at the refund yet.
      await signInAs(sue.page, w.url, w.tokens.sue, '/');
      const row = sue.page.locator(`li.qitem[data-id="${req.id}"]`);
      await row.waitFor();
      assert.equal(await row.locator('.qclaim').isHidden(), true);

      // Sam opens the card: it is his, claimed by opening it, and Sue's row says so without a reload.
      await signInAs(sam.page, w.url, w.tokens.sam, `/approvals/${req.id}`);
      await sam.page.locator('article.review[data-status="pending"]').waitFor();
      await sam.page.locator('#claim .chip-claim-mine').waitFor();
      assert.match(
        await sam.page.locator('#claim').innerText(),
        /You are looking at this since \d\d:\d\d( [AP]M)? \(claimed when you opened it\)/,
      );
      await row.locator('.qclaim', { hasText: 'Sam Supervisor is looking at this since' }).waitFor();

      // Sue opens the card: Sam's claim is shown, not taken.
      await sue.page.goto(`${w.url}/approvals/${req.id}`);
      await sue.page.locator('article.review[data-status="pending"]').waitFor();
      await sue.page.locator('#claim-holder', { hasText: 'Sam Supervisor is looking at this since' }).waitFor();
      assert.match(
        await sue.page.locator('#h-notes').innerText(),
        /Internal notes — for reviewers, not sent to the agent/,
      );

      // Sam writes an internal note; it reaches Sue's open card live.
      await sam.page.fill('#note-text', NOTE);
      await sam.page.click('#note-add');
      await sam.page.locator('#notes-list li.note', { hasText: NOTE }).waitFor();
      const sueNote = sue.page.locator('#notes-list li.note', { hasText: NOTE });
      await sueNote.waitFor();
      assert.match(await sueNote.innerText(), /Sam Supervisor/);

      // Approve asks first whether to decide over Sam; Sue cancels.
      await sue.page.locator('#h-notes').click(); // off the note field: keys go to the card
      await sue.page.keyboard.press('a');
      const dialog = sue.page.locator('dialog.confirm');
      await dialog.waitFor();
      assert.equal(
        await dialog.locator('#confirm-title').innerText(),
        'Sam Supervisor is looking at this — decide anyway?',
      );
      await sue.page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // Reject: the reason is required; without one nothing is sent, and the API would refuse it too.
      await sue.page.click('#do-reject');
      assert.equal(await sue.page.locator('#reject-reasons legend').innerText(), 'Reason (required)');
      await sue.page.click('#reject-submit');
      await sue.page.locator('#reject-message-error', { hasText: 'This rule needs a reason to reject' }).waitFor();
      assert.equal(await sue.page.locator('dialog.confirm').count(), 0, 'no confirm step without a reason');
      const bare = await fetchJson<{ error: { code: string } }>(`${w.url}/api/v1/approvals/${req.id}/decision`, {
        token: w.tokens.sue,
        body: { type: 'reject', expectedVersion: req.version, actionHash: req.actionHash },
      });
      assert.equal(bare.status, 422);
      assert.equal(bare.body.error.code, 'reason_required');

      // With a canned choice it goes through (asking once more about Sam's claim).
      await sue.page.check('#reject-reason-0');
      await sue.page.click('#reject-submit');
      await dialog.waitFor();
      assert.match(
        await dialog.innerText(),
        /Sam Supervisor is looking at this — decide anyway\?[\s\S]*Duplicate request/,
      );
      await sue.page.click('dialog.confirm [data-confirm="yes"]');
      await sue.page.locator('#banner', { hasText: 'Rejected.' }).waitFor();

      // The decision ends Sam's claim on his screen; the agent is told the reason, never the note.
      await sam.page.locator('article.review[data-status="rejected"]').waitFor();
      assert.equal(await sam.page.locator('#claim').innerText(), '');
      const outcome = await w.svc.interlock.requestOutcome(req.id);
      assert.equal(outcome.state, 'rejected');
      if (outcome.state !== 'rejected') return;
      assert.equal(
        notRunText(outcome),
        "A reviewer rejected this action; it was not performed. Reviewer's message: Duplicate request",
      );
      assert.equal(JSON.stringify(outcome).includes('promised by phone'), false);

      // The thread page shows the note under its request, labelled internal.
      await sue.page.goto(`${w.url}/threads/${req.threadId}`);
      const onThread = sue.page.locator(`[data-notes-for="${req.id}"]`);
      await onThread.locator('li.note', { hasText: NOTE }).waitFor();
      assert.match(await onThread.innerText(), /not sent to the agent/);

      assert.deepEqual(sam.errors, []);
      assert.deepEqual(sue.errors, []);
      await sam.page.context().close();
      await sue.page.context().close();
    });
  });
}
