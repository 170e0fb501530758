/**
 * "Needs attention" in Chromium against a real service, on both backends: a reviewer approves a few
 * refunds, some fail when they run, and without a reload the reviewer sees exactly those — each with
 * its tool, arguments (hidden-character and look-alike chips), masked error, who approved and when,
 * linking to the card and the thread — newest first, the top bar saying "Needs attention (N)" (and
 * nothing while N is 0); a failure arriving later goes on top while focus stays where it was. axe-core
 * finds nothing on the empty page and on the list.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { ApprovalRequest } from '../core/index.ts';
import { closeUiSuite, js, newPage, signInAs, startUiSuite, type UiWorld } from '../../test/support/browser-fixture.ts';
import { expectNoAxeViolations } from '../../test/support/axe.ts';

/** A thread whose agent no worker runs: the test runs each approved call itself. */
const AGENT = 'attention-test';

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`needs attention in Chromium on ${backend}`, () => {
    let w: UiWorld;
    let browser: Browser;
    let n = 0;
    before(async () => ([w, browser] = await startUiSuite(backend)));
    after(() => closeUiSuite(browser, w));

    async function pauseRefund(args: Record<string, unknown>): Promise<ApprovalRequest> {
      const il = w.svc.interlock;
      const call = { tool: 'issue_refund', args: { customerId: 'test-001', ...args } };
      const { requests } = await il.pause({
        thread: { id: `attention-${backend}-${++n}`, agent: AGENT, agentVersion: '1' },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: `agent:${AGENT}`,
      });
      return requests[0]!;
    }
    /** Run the approved call as the agent would: it fails with `error`, or succeeds without one. */
    async function run(req: ApprovalRequest, error?: string) {
      const cur = await w.svc.interlock.getRequestOrThrow(req.id);
      const out = await w.svc.interlock.executeOnce(
        {
          key: `${cur.id}:${cur.actionHash}`,
          tool: cur.tool,
          args: cur.args,
          requestId: cur.id,
          threadId: cur.threadId,
        },
        async () => {
          if (error !== undefined) throw new Error(error);
          return { refunded: true };
        },
      );
      assert.equal(out.status, error === undefined ? 'succeeded' : 'failed');
    }
    const approve = async (who: 'sam' | 'sue', req: ApprovalRequest) =>
      assert.equal(
        await w.decideAs(who, req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }),
        200,
      );
    const rows = async (page: Page) =>
      (await js(page, '[...document.querySelectorAll("#attention-list > li")].map((li) => li.dataset.id)')) as string[];

    it('a reviewer sees exactly their failed approvals, live, with errors, chips and links; focus stays put', async () => {
      const r1 = await pauseRefund({ orderId: 'ORD-901', amount: 720 });
      const r2 = await pauseRefund({ orderId: 'ORD-902', amount: 730 });
      // A look-alike address (Cyrillic М) and a right-to-left override hidden in the note.
      const r3 = await pauseRefund({ orderId: 'ORD-903', amount: 740, note: '1 Мaple Dr \u202eetoN' });
      const r4 = await pauseRefund({ orderId: 'ORD-904', amount: 750 });
      const sues = await pauseRefund({ orderId: 'ORD-905', amount: 760 });
      for (const r of [r1, r2, r3, r4]) await approve('sam', r);
      await approve('sue', sues);

      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, '/');
      await page.locator('#queue').waitFor();
      assert.equal(await page.locator('#attention-link').isHidden(), true, 'nothing failed: no link');

      await page.goto(`${w.url}/attention`);
      await page.waitForSelector('#live[data-state="live"]');
      await page.locator('#attention .empty').waitFor();
      assert.match(await page.locator('#attention').innerText(), /Nothing needs your attention\./);
      await expectNoAxeViolations(page, 'needs attention, empty');

      await run(r1, 'card declined by the bank for dana.reyes@example.com');
      await run(r2);
      await run(r3, 'address rejected by the carrier');
      await run(sues, 'shop offline');
      // No reload: the rows arrive from the live events, newest failure first, Sue's not among them.
      await page.locator('#attention-list > li').nth(1).waitFor();
      await page.locator('#attention-count', { hasText: /^2$/ }).waitFor();
      assert.deepEqual(await rows(page), [r3.id, r1.id]);
      assert.equal(await page.locator('#attention-link').innerText(), 'Needs attention (2)');
      assert.match(await page.locator('#attention-summary').innerText(), /^2 failed approvals\./);

      const first = page.locator(`#attention-list > li[data-id="${r1.id}"]`);
      assert.equal(
        await first.locator('.attention-error').innerText(),
        'Failed: card declined by the bank for d***@example.com',
      );
      assert.match(await first.locator('.attention-who').innerText(), /^approved by you · failed .+/);
      assert.match(await first.locator('.qargs').innerText(), /orderId: ORD-901 · amount: 720/);
      assert.equal(await first.locator('a.qlink').innerText(), 'issue_refund');
      assert.equal(await first.locator('a.qlink').getAttribute('href'), `/approvals/${r1.id}`);
      assert.equal(await first.locator('a.thread-link').getAttribute('href'), `/threads/${r1.threadId}`);
      const marked = page.locator(`#attention-list > li[data-id="${r3.id}"]`);
      assert.match(await marked.locator('.chip-lookalike').innerText(), /look-alike letters: Мaple/);
      assert.equal(await marked.locator('.chip-hidden:not(.chip-lookalike)').innerText(), '⚠ hidden characters');
      assert.match(await marked.locator('.qargs').innerText(), /⟨U\+202E/);
      await expectNoAxeViolations(page, 'needs attention, two failed approvals');

      // Focus on a row's link; a later failure goes on top and the focus stays where it was.
      await first.locator('a.qlink').focus();
      await run(r4, 'payment provider timeout');
      await page.locator(`#attention-list > li[data-id="${r4.id}"]`).waitFor();
      assert.deepEqual(await rows(page), [r4.id, r3.id, r1.id]);
      assert.equal(await js(page, 'document.activeElement?.closest("li")?.dataset.id'), r1.id);
      assert.equal(await page.locator('#attention-link').innerText(), 'Needs attention (3)');

      // Elsewhere in the UI the top bar says so too, and leads here.
      await page.goto(`${w.url}/`);
      await page.locator('#attention-link:visible', { hasText: 'Needs attention (3)' }).waitFor();
      await page.click('#attention-link');
      await page.waitForURL('**/attention');
      await page.locator('#attention-list > li').nth(2).waitFor();
      assert.deepEqual(await rows(page), [r4.id, r3.id, r1.id]);
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('shows fifty, then the rest with Show more, each once and newest first', async () => {
      const first = (await w.svc.interlock.attention.list({ all: true })).items.filter((f) =>
        f.approvers.some((a) => a.name === 'Sue Supervisor'),
      );
      assert.equal(first.length, 1, 'Sue’s failure of the first test');
      // Decided through the engine as Sue: fifty-one clicks would meet the API's decision rate limit.
      const sue = (await w.svc.interlock.reviewers.listReviewers()).find((r) => r.name === 'Sue Supervisor')!;
      const made: string[] = [];
      for (let i = 0; i < 51; i++) {
        const r = await pauseRefund({ orderId: `ORD-M${i}`, amount: 800 + i });
        await w.svc.interlock.decide(
          r.id,
          { type: 'approve', expectedVersion: r.version, actionHash: r.actionHash },
          sue,
        );
        await run(r, `declined ${i}`);
        made.push(r.id);
      }
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sue, '/attention');
      await page.locator('#attention-more').waitFor();
      assert.equal((await rows(page)).length, 50);
      assert.match(await page.locator('#attention-summary').innerText(), /^52 failed approvals\./);
      await page.click('#attention-more');
      await page.locator('#attention-list > li').nth(51).waitFor();
      assert.equal(await page.locator('#attention-more').count(), 0, 'nothing more to show');
      assert.deepEqual(await rows(page), [...made.reverse(), first[0]!.request.id]);
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  });
}
