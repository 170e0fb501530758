/**
 * Batch review in Chromium against a real service, on both backends: each
 * item says what happened to it, escalate-tier items are approved only when
 * ticked on purpose, and two items that are the same action are pointed out.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { closeUiSuite, startUiSuite, newPage, signInAs, type UiWorld } from '../../test/support/browser-fixture.ts';

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`batch review in Chromium on ${backend}`, () => {
    let w: UiWorld;
    let browser: Browser;
    before(async () => ([w, browser] = await startUiSuite(backend)));
    after(() => closeUiSuite(browser, w));

    it('reports each item, leaves a two-supervisor refund unticked until chosen, and warns about the same action twice', async () => {
      const big = await w.waitForRequest(await w.startThread('partial refund of $3000 for order ORD-78291'));
      const twinA = await w.waitForRequest(await w.startThread('partial refund of $700 for order ORD-999'));
      const twinB = await w.waitForRequest(await w.startThread('partial refund of $700 for order ORD-999'));
      const other = await w.waitForRequest(await w.startThread('partial refund of $720 for order ORD-999'));
      assert.equal(twinA.actionHash, twinB.actionHash, 'the same action');

      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, '/batch?tool=issue_refund');
      await page.locator('.batch-item').nth(3).waitFor();
      const item = (id: string) => page.locator(`.batch-item[data-id="${id}"]`);
      assert.equal(await item(big.id).getAttribute('data-tier'), 'escalate');
      assert.equal(
        await item(big.id).locator('input[type="checkbox"]').isChecked(),
        false,
        'escalate-tier: not ticked by default',
      );
      for (const r of [twinA, twinB, other])
        assert.equal(await item(r.id).locator('input[type="checkbox"]').isChecked(), true);
      assert.match(await page.locator('#approve-all').innerText(), /Approve 3 of 4/);
      assert.match(
        await page.locator('#same-actions').innerText(),
        /Items \d and \d are the same action \(issue_refund with the same arguments\)/,
      );
      assert.match(await item(twinA.id).locator('.same-action').innerText(), /same action as item \d/);
      assert.equal(await item(other.id).locator('.same-action').count(), 0);
      const page1 = await page.locator('article.card').innerText();
      assert.doesNotMatch(page1, /digest/i, 'no jargon');

      // A deliberate choice: tick the escalate-tier refund; untick one of the twins.
      await item(big.id).locator('input[type="checkbox"]').check();
      await item(twinB.id).locator('input[type="checkbox"]').uncheck();
      // Another supervisor takes one item first: it is refused, the others land.
      assert.equal(
        await w.decideAs('sue', other.id, {
          type: 'approve',
          expectedVersion: other.version,
          actionHash: other.actionHash,
        }),
        200,
      );
      await page.click('#approve-all');
      const dialog = page.locator('dialog.confirm');
      await dialog.waitFor();
      assert.match(
        await dialog.innerText(),
        /Approve these 3 requests\?[\s\S]*escalate[\s\S]*1 not ticked: it stays pending/,
      );
      assert.doesNotMatch(await dialog.innerText(), /digest/i);
      await page.keyboard.press('Enter');
      await page.locator('#batch-result').waitFor();
      assert.equal(
        await page.locator('#batch-result p').first().innerText(),
        '1 approved, 1 counted toward a quorum (not yet approved), 1 refused (see each item), 1 not ticked, still pending.',
      );
      assert.match(await item(twinA.id).locator('[role="status"]').innerText(), /✔ approved$/);
      assert.match(await item(big.id).locator('[role="status"]').innerText(), /counted 1\/2 toward quorum/);
      assert.match(
        await item(other.id).locator('[role="status"]').innerText(),
        /✖ refused: someone else decided this request first/,
      );
      assert.match(await item(twinB.id).locator('[role="status"]').innerText(), /not ticked/);
      const status = async (id: string) => (await w.svc.interlock.getRequestOrThrow(id)).status;
      assert.equal(await status(twinB.id), 'pending', 'the unticked twin is not decided');
      assert.equal(await status(big.id), 'pending', 'one of two approvals');
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  });
}
