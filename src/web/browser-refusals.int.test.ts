/**
 * The review card when the request moves on behind the reviewer: an open
 * confirm dialog that can no longer send, expiry worded as expiry, refusals
 * worded as refusals — in Chromium against a real service, on both backends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { closeUiSuite, startUiSuite, newPage, signInAs, type UiWorld } from '../../test/support/browser-fixture.ts';

/** Every decision the page POSTs, by path. */
function decisionPosts(page: Page): string[] {
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && /\/decision$/.test(new URL(r.url()).pathname)) posts.push(new URL(r.url()).pathname);
  });
  return posts;
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`review card refusals in Chromium on ${backend}`, () => {
    let w: UiWorld;
    let browser: Browser;
    before(async () => ([w, browser] = await startUiSuite(backend)));
    after(() => closeUiSuite(browser, w));

    it('an open confirm dialog stops sending when another reviewer decides behind it', async () => {
      const req = await w.waitForRequest(await w.startThread('partial refund of $640 for order ORD-999'));
      const { page, errors } = await newPage(browser);
      const posts = decisionPosts(page);
      await signInAs(page, w.url, w.tokens.sam, `/approvals/${req.id}`);
      await page.locator('article.review[data-status="pending"]').waitFor();
      await page.keyboard.press('a');
      await page.locator('dialog.confirm').waitFor();
      assert.equal(
        await w.decideAs('sue', req.id, {
          type: 'reject',
          message: 'not this one',
          expectedVersion: req.version,
          actionHash: req.actionHash,
        }),
        200,
      );
      const dialog = page.locator('dialog.confirm[data-stale="true"]');
      await dialog.waitFor();
      assert.match(
        await dialog.locator('.confirm-stale').innerText(),
        /Another reviewer just decided this request \(reject\)\. Your decision was not sent\./,
      );
      assert.equal(await dialog.locator('[data-confirm="yes"]').isDisabled(), true, 'Confirm can no longer send');
      await page.keyboard.press('Enter'); // the press meant for Confirm lands on Close
      await page.locator('dialog.confirm').waitFor({ state: 'detached' });
      await page.locator('article.review[data-status="rejected"]').waitFor();
      assert.deepEqual(posts, [], 'nothing was sent');
      assert.doesNotMatch(await page.locator('#banner').innerText(), /Someone else decided/i);
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('a request that expires behind an open dialog is never sent, and says it expired', async () => {
      const req = await w.waitForRequest(await w.startThread('partial refund of $660 for order ORD-999'));
      const { page, errors } = await newPage(browser);
      await page.clock.install();
      const posts = decisionPosts(page);
      await signInAs(page, w.url, w.tokens.sam, `/approvals/${req.id}`);
      await page.locator('article.review[data-status="pending"]').waitFor();
      await page.keyboard.press('a');
      await page.locator('dialog.confirm').waitFor();
      await page.clock.fastForward('31:00'); // past the 30-minute timeout, by the page's clock
      const dialog = page.locator('dialog.confirm[data-stale="true"]');
      await dialog.waitFor();
      assert.match(
        await dialog.innerText(),
        /This request expired at .+; nothing ran; its timeout default \(reject\) applies\. Your decision was not sent\./,
      );
      await page.keyboard.press('Enter');
      await page.locator('dialog.confirm').waitFor({ state: 'detached' });
      await page.keyboard.press('a'); // approving again opens nothing
      assert.equal(await page.locator('dialog.confirm').count(), 0);
      // The card re-renders as expired after the dialog closes: wait for it rather than race it.
      await page.locator('#do-approve').waitFor({ state: 'detached' });
      const banner = await page.locator('#banner').innerText();
      assert.match(banner, /This request expired at .+; nothing ran/);
      assert.doesNotMatch(banner, /Someone else decided/i);
      assert.deepEqual(posts, [], 'an expired request gets no POST');
      assert.equal((await w.svc.interlock.getRequestOrThrow(req.id)).status, 'pending', 'the server was never asked');
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('a decision the server refuses as expired says "expired … nothing ran", not that someone else decided', async () => {
      const req = await w.waitForRequest(await w.startThread('partial refund of $680 for order ORD-999'));
      const { page } = await newPage(browser);
      // This page hears nothing live and its clock is right: only the server knows the request expired.
      await page.route('**/api/v1/events', (r) => r.abort());
      await page.goto(`${w.url}/approvals/${req.id}`);
      await page.fill('#token', w.tokens.sam);
      await page.click('button[type="submit"]');
      await page.locator('article.review[data-status="pending"]').waitFor();
      const posts = decisionPosts(page);
      await w.svc.store.transaction(async (tx) => {
        const r = (await tx.getRequest(req.id, { forUpdate: true }))!;
        assert.ok(await tx.updateRequest({ ...r, expiresAt: Date.now() - 1000 }, r.version));
      });
      await page.click('#do-approve');
      await page.locator('dialog.confirm').waitFor();
      await page.keyboard.press('Enter');
      await page.locator('#banner.alert-warn').waitFor();
      const banner = await page.locator('#banner').innerText();
      assert.match(
        banner,
        /^Your decision was refused: this request expired at .+; nothing ran; its timeout default \(reject\) applies\./,
      );
      assert.doesNotMatch(banner, /Someone else decided|Nothing was sent/i);
      assert.equal(posts.length, 1, 'sent once, refused');
      await page.context().close();
    });
  });
}
