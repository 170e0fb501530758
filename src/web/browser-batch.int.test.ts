/**
 * Batch review in Chromium against a real service, on both backends: nothing is ticked for the
 * reviewer; the page says where it stands among 1,000+ requests and pages on; the confirm step sums
 * the ticked requests up in words (amount, several refunds on one order, the same action twice);
 * after approval each item follows its request to its end — ran, failed with the tool's error, a
 * planted check that did not run — live; look-alike and hidden characters are flagged per item.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { orderSupportPolicy } from '../../examples/order-support/policy.ts';
import type { PolicyConfig, ToolPolicy } from '../core/index.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { closeUiSuite, startUiSuite, newPage, signInAs, type UiWorld } from '../../test/support/browser-fixture.ts';

/** An engine over the service's database whose $500+ refund rule plants a check beside every request. */
function plantingEngine(w: UiWorld): Interlock {
  const refunds = orderSupportPolicy.tools.issue_refund as ToolPolicy;
  const policy: PolicyConfig = {
    tools: {
      issue_refund: {
        ...refunds,
        rules: refunds.rules.map((r) =>
          r.id === 'refund-over-500'
            ? {
                ...r,
                plant: {
                  rate: 1,
                  template: ({ args }: { args: Record<string, unknown> }) => ({
                    args: { ...args, customerId: 'test-005' },
                  }),
                },
              }
            : r,
        ),
      },
    },
  };
  return createInterlock({ store: w.svc.store, policy, random: () => 0 });
}

/** Pause `n` calls of one tool in threads of `perThread` parallel calls each, through the engine. */
async function seed(
  il: Interlock,
  prefix: string,
  n: number,
  perThread: number,
  call: (i: number) => { tool: string; args: Record<string, unknown> },
): Promise<void> {
  const verdict = await il.gate(call(0));
  for (let t = 0; t * perThread < n; t++) {
    const items = [];
    for (let i = t * perThread; i < Math.min(n, (t + 1) * perThread); i++)
      items.push({ call: call(i), toolCallId: `call_${prefix}_${i}`, verdict });
    await il.pause({
      thread: { id: `${prefix}-${t}`, agent: 'seeded', agentVersion: '1' },
      items,
      proposer: 'agent:seeded',
    });
  }
}

/** Wait until request `id` has run (or failed to). */
async function settled(w: UiWorld, id: string): Promise<void> {
  while (!['executed', 'failed'].includes((await w.svc.interlock.getRequestOrThrow(id)).status))
    await new Promise((resolve) => setTimeout(resolve, 25));
}

const checked = (page: Page) => page.locator('.batch-item input[type="checkbox"]:checked').count();

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`batch review in Chromium on ${backend}`, () => {
    let w: UiWorld;
    let browser: Browser;
    before(async () => ([w, browser] = await startUiSuite(backend)));
    after(() => closeUiSuite(browser, w));

    it('ticks nothing for the reviewer, sums the ticked ones up, reports each item and warns about the same action twice', async () => {
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
      assert.equal(await checked(page), 0, 'nothing ticked for the reviewer (the default setting)');
      assert.equal(await page.locator('#approve-all').isDisabled(), true);
      await page.keyboard.press('a');
      assert.equal(await page.locator('dialog.confirm').count(), 0, '`a` with nothing ticked opens nothing');
      assert.match(await page.locator('#batch-count').innerText(), /^4 of 4 you can approve in this group \(1–4\)\.$/);
      assert.equal(await page.locator('#batch-next').count(), 0, 'one page');
      assert.match(
        await page.locator('#same-actions').innerText(),
        /Items \d and \d are the same action \(issue_refund with the same arguments\)/,
      );
      assert.match(await item(twinA.id).locator('.item-warnings').innerText(), /same action as item \d/);
      assert.match(
        await page.locator('#same-subjects').innerText(),
        /3 issue_refund requests on order ORD-999, 2,120 in all/,
        'near-duplicates: different refunds of one order',
      );
      assert.match(
        await item(other.id).locator('.item-warnings').innerText(),
        /3 requests in this list act on order ORD-999/,
      );
      assert.doesNotMatch(await page.locator('article.card').innerText(), /digest/i, 'no jargon');

      // Deliberate choices: the escalate-tier refund, one of the twins, and the $720 one.
      for (const r of [big, twinA, other]) await item(r.id).locator('input[type="checkbox"]').check();
      assert.match(await page.locator('#approve-all').innerText(), /Approve 3 of 4/);
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
      assert.ok(await dialog.locator('#confirm-title').isVisible(), 'the title is in view');
      const text = await dialog.innerText();
      assert.match(text, /^Approve these 3 requests\?/);
      assert.match(text, /3 actions: 3 × issue_refund\./);
      assert.match(text, /Amount: 4,420 in all\./);
      assert.match(text, /⚠ 2 issue_refund requests on order ORD-999, 1,420 in all\./);
      assert.match(text, /1 is escalate-tier/);
      assert.match(text, /1 not ticked: it stays pending/);
      assert.doesNotMatch(text, /[{}"]/, 'words, not raw JSON');
      // Sue's approval runs first: $720 of the $850 order is refunded before this batch is sent.
      await settled(w, other.id);
      await page.keyboard.press('Enter');
      await page.locator('#batch-summary', { hasText: /^1 approved: 0 ran, 1 failed, 0 did not run\./ }).waitFor();
      assert.equal(
        await page.locator('#batch-summary').innerText(),
        '1 approved: 0 ran, 1 failed, 0 did not run. 1 counted toward a quorum (not yet approved), 1 refused (see each item), 1 not ticked, still pending.',
      );
      assert.equal(
        await item(twinA.id).locator('[role="status"]').innerText(),
        '✖ approved — failed: refund $700 on top of $720 already refunded exceeds the order total $850',
        'approved is not ran: the shop refused it',
      );
      assert.match(await item(big.id).locator('[role="status"]').innerText(), /^◔ counted 1\/2 toward quorum/);
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

    it('follows each approved request to its end, live: ran, failed with the tool’s error, a planted check not run', async () => {
      // Three $600 refunds of a $640 order: whichever runs first succeeds, the shop refuses the other two.
      const threads = await Promise.all([1, 2, 3].map(() => w.startThread('partial refund of $600 for order ORD-501')));
      const refunds = await Promise.all(threads.map((t) => w.waitForRequest(t)));
      const planting = plantingEngine(w);
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-502', customerId: 'test-004', amount: 650 } };
      await planting.pause({
        thread: { id: `planted-${backend}`, agent: 'seeded', agentVersion: '1' },
        items: [{ call, toolCallId: 'call_planted', verdict: await planting.gate(call) }],
        proposer: 'agent:seeded',
      });
      const [check] = (await w.svc.store.listRequests({ threadId: `planted-${backend}`, planted: true })).items;
      assert.ok(check, 'a planted check was placed');
      if (!check) return;

      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, '/batch?tool=issue_refund');
      const item = (id: string) => page.locator(`.batch-item[data-id="${id}"]`);
      await item(check.id).waitFor();
      for (const r of [...refunds, check]) await item(r.id).locator('input[type="checkbox"]').check();
      await page.click('#approve-all');
      const dialog = page.locator('dialog.confirm');
      await dialog.waitFor();
      assert.match(await dialog.innerText(), /⚠ 3 issue_refund requests on order ORD-501, 1,800 in all\./);
      assert.match(await dialog.innerText(), /Amount: 2,450 in all\./);
      await page.keyboard.press('Enter');
      await page.locator('#batch-summary', { hasText: /^4 approved: 1 ran, 2 failed, 1 did not run\./ }).waitFor();
      const lines = await Promise.all(refunds.map((r) => item(r.id).locator('[role="status"]').innerText()));
      assert.equal(lines.filter((l) => l === '✔ approved — ran').length, 1);
      const failed = lines.filter((l) => l.startsWith('✖ approved — failed: '));
      assert.equal(failed.length, 2);
      for (const l of failed)
        assert.match(l, /failed: refund \$600 on top of \$600 already refunded exceeds the order total \$640$/);
      const planted = await item(check.id).locator('[role="status"]').innerText();
      assert.match(planted, /^○ approved — did not run: this was a planted check/);
      assert.doesNotMatch(planted, /✔/, 'no tick that implies it ran');
      assert.match((await item(check.id).getAttribute('class')) ?? '', /\bis-notrun\b/);
      assert.equal((await w.svc.interlock.getRequestOrThrow(check.id)).status, 'authorized', 'and it never ran');
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('says where a page stands among 1,050 requests and goes on to the next page, ticking nothing', async () => {
      await seed(w.svc.interlock, `mail-${backend}`, 1050, 50, (i) => ({
        tool: 'send_email',
        args: {
          customerId: `cus_${i}`,
          subject: `Your order #${i}`,
          body: 'It ships tomorrow.',
          reason: 'shipping update',
        },
      }));
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, '/batch?tool=send_email');
      await page.locator('.batch-item').nth(99).waitFor();
      assert.equal(await page.locator('.batch-item').count(), 100);
      assert.equal(
        await page.locator('#batch-count').innerText(),
        '100 of 1,050 you can approve in this group (1–100) — the next 100 after these.',
      );
      assert.equal(await checked(page), 0);
      const first = await page.locator('.batch-item').first().getAttribute('data-id');
      assert.equal(await page.locator('#batch-next').innerText(), 'Next 100 (101–200) →');
      await page.click('#batch-next');
      await page.locator('#batch-count', { hasText: '(101–200)' }).waitFor();
      assert.equal(
        await page.locator('#batch-count').innerText(),
        '100 of 1,050 you can approve in this group (101–200) — the next 100 after these.',
      );
      assert.notEqual(await page.locator('.batch-item').first().getAttribute('data-id'), first);
      assert.equal(
        await page.locator('.batch-item .item-no').first().innerText(),
        '101.',
        'numbered in the whole group',
      );
      assert.equal(await checked(page), 0);
      assert.equal(await page.locator('#batch-first').count(), 1);
      // A deliberate tick of the hundred warning-free ones: the confirm step's title stays in view above its sums.
      await page.click('#tick-clean');
      assert.equal(await checked(page), 100);
      await page.click('#approve-all');
      const title = page.locator('dialog.confirm #confirm-title');
      await title.waitFor();
      assert.equal(await title.innerText(), 'Approve these 100 requests?');
      const box = await title.boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= 900, 'the title is on screen');
      assert.match(await page.locator('#confirm-count').innerText(), /^100 actions: 100 × send_email\.$/);
      await page.keyboard.press('Escape');
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('flags look-alike letters and hidden characters on batch items', async () => {
      await seed(w.svc.interlock, `addr-${backend}`, 3, 3, (i) => ({
        tool: 'change_shipped_address',
        args: {
          orderId: ['ORD-501', 'ORD-502', 'ORD-503'][i]!,
          address: ['1 \u041caple Dr, Springfield', '9 Elm St\u202e, Springfield', '4 Oak Ave, Shelbyville'][i]!,
        },
      }));
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.leo, '/batch?tool=change_shipped_address');
      await page.locator('.batch-item').nth(2).waitFor();
      const items = page.locator('.batch-item');
      const [spoof, hidden, plain] = [items.nth(0), items.nth(1), items.nth(2)];
      assert.match(await spoof.locator('.qtitle').innerText(), /⚠ look-alike letters/);
      assert.match(
        await spoof.locator('.item-warnings').innerText(),
        /Look-alike letters: “\u041caple” mixes Latin with Cyrillic or Greek letters/,
      );
      assert.match(await hidden.locator('.qtitle').innerText(), /⚠ hidden characters/);
      assert.match(await hidden.locator('.item-warnings').innerText(), /U\+202E RIGHT-TO-LEFT OVERRIDE/);
      assert.equal(await plain.locator('.item-warnings').count(), 0);
      await spoof.locator('input[type="checkbox"]').check();
      await page.click('#approve-all');
      assert.match(await page.locator('dialog.confirm').innerText(), /⚠ Look-alike letters in “\u041caple”\./);
      await page.keyboard.press('Escape');
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  });
}
