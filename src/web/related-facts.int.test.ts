/**
 * Current facts and related requests on the review card, in Chromium against a real service, on both
 * backends: the card shows the facts read again when it opens, dated, and the other open requests on
 * the same order with their sum; when "refunded so far" changes after the card loaded, the approve
 * dialog says so before the reviewer confirms.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { z } from 'zod';
import { closeUiSuite, newPage, signInAs, startUiSuite, type UiWorld } from '../../test/support/browser-fixture.ts';

const refundArgs = z.object({ orderId: z.string(), customerId: z.string(), amount: z.number() });

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`current facts and related requests on the card in Chromium on ${backend}`, () => {
    let w: UiWorld;
    let browser: Browser;
    // The payment system as the tool's facts read it.
    const refunded = new Map<string, number>();
    let n = 0;
    before(async () => {
      [w, browser] = await startUiSuite(backend);
      w.svc.interlock.registerTools({
        issue_refund: {
          schema: refundArgs,
          subject: ['orderId'],
          facts: ({ orderId }) => ({ orderTotal: 640, refundedSoFar: refunded.get(String(orderId)) ?? 0 }),
        },
      });
    });
    after(() => closeUiSuite(browser, w));

    async function pauseRefund(orderId: string, amount: number) {
      const il = w.svc.interlock;
      const call = { tool: 'issue_refund', args: { orderId, customerId: 'test-001', amount } };
      const { requests } = await il.pause({
        thread: { id: `facts-${backend}-${++n}`, agent: 'facts-test', agentVersion: '1' },
        items: [{ call, verdict: await il.gate(call), evidence: { orderTotal: 640, refundedSoFar: 0 } }],
        proposer: 'agent:facts-test',
      });
      return requests[0]!;
    }

    it('shows the facts as of now and the other refunds on the order; a fact that moved after load is said before confirming', async () => {
      const order = `ORD-F${backend}`;
      const req = await pauseRefund(order, 640);
      await pauseRefund(order, 600);
      await pauseRefund(order, 610);
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, `/approvals/${req.id}`);
      const panel = page.locator('#related-facts');
      await panel.locator('section.current-facts').waitFor();
      assert.match(await panel.locator('section.current-facts h3').innerText(), /as of .*read again now/);
      const subject = panel.locator('section.subject[data-subject="orderId"]');
      assert.match(
        await subject.locator('h3').innerText(),
        new RegExp(`orderId ${order}: 2 other open — 1,210 in all`),
      );
      assert.equal(await subject.locator('li').count(), 2);

      // Meanwhile the order is refunded in full elsewhere.
      refunded.set(order, 640);
      await page.keyboard.press('a');
      const dialog = page.locator('dialog.confirm');
      await dialog.waitFor();
      assert.match(await dialog.innerText(), /Since you opened this card: refundedSoFar 0 → 640\./);
      assert.match(
        await panel.locator('tr.fact.changed').innerText(),
        /refundedSoFar\s+640\s+was 0 when the request opened/,
      );
      await page.keyboard.press('Escape');
      assert.equal((await w.svc.interlock.getRequestOrThrow(req.id)).status, 'pending', 'nothing was decided');
      assert.deepEqual(errors, []);
      await page.close();
    });
  });
}
