/**
 * The reviewer's screen in Chromium against a real service (SQLite; the pages are the same on both
 * backends): at 1280×720 the action and the decision are in view without scrolling and focus starts
 * on the card's heading; on a 390×844 phone the decisions stay in a bar at the bottom; the focus ring
 * has 3:1 contrast wherever it lands; chart labels stay readable on a phone; typed text survives
 * Escape, the confirm dialog, another reviewer's vote and a reload, and goes once decided; desktop
 * notifications of new requests, opted into, only while the tab is in the background; and the batch
 * page's `a` from a tick box and its refusal that says where the request stands.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { createInterlock } from '../engine/index.ts';
import { orderSupportPolicy } from '../../examples/order-support/policy.ts';
import { closeUiSuite, js, newPage, signInAs, startUiSuite, type UiWorld } from '../../test/support/browser-fixture.ts';
import { boxOf, smallestChartText, tabRings, waitUntil, type FocusRing } from '../../test/support/layout-probes.ts';

const weakRings = (rings: FocusRing[]) =>
  rings.filter((r) => r.ratio < 3).map((r) => `${r.element}: ${r.ring} on ${r.behind} (${r.ratio.toFixed(2)}:1)`);

describe("the reviewer's screen in Chromium", () => {
  let w: UiWorld;
  let browser: Browser;
  before(async () => ([w, browser] = await startUiSuite('sqlite')));
  after(() => closeUiSuite(browser, w));

  it('at 1280×720 shows the action and the decision without scrolling, focus on the heading, rings at 3:1', async () => {
    const req = await w.waitForRequest(await w.startThread('partial refund of $600 for order ORD-501'));
    const { page, errors } = await newPage(browser, { width: 1280, height: 720 });
    await signInAs(page, w.url, w.tokens.sam, `/approvals/${req.id}`);
    await page.locator('article.review[data-status="pending"]').waitFor();
    assert.equal(await js(page, 'document.activeElement?.id'), 'review-title', 'focus starts on the heading');
    assert.equal(await js(page, 'window.scrollY'), 0);
    for (const sel of ['.tool-line', 'table.args', '#do-approve', '#do-edit', '#do-reject', '#do-respond']) {
      const box = await boxOf(page, sel);
      assert.ok(
        box && box.top >= 0 && box.bottom <= 720,
        `${sel} is in view without scrolling: ${JSON.stringify(box)}`,
      );
    }
    assert.deepEqual(weakRings(await tabRings(page, 14)), [], 'every focus ring on the card');
    await page.goto(`${w.url}/`);
    await page.locator('.qitem').first().waitFor();
    const queueRings = await tabRings(page, 24);
    assert.ok(
      queueRings.some((r) => r.element.startsWith('a.qlink')),
      `Tab reached a queue row, whose ring its row draws: ${queueRings.map((r) => r.element).join(' ')}`,
    );
    assert.deepEqual(weakRings(queueRings), [], 'every focus ring on the queue');
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(weakRings(await tabRings(page, 24)), [], 'every focus ring on the queue, dark colour scheme');
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  it('on a 390×844 phone keeps the decisions in a bar at the bottom, and the chart labels readable', async () => {
    const req = await w.waitForRequest(await w.startThread('partial refund of $3000 for order ORD-78291'));
    const { page, errors } = await newPage(browser, { width: 390, height: 844 });
    await signInAs(page, w.url, w.tokens.sam, `/approvals/${req.id}`);
    await page.locator('article.review[data-status="pending"]').waitFor();
    const bar = async () => (await boxOf(page, '.decide-buttons'))!;
    const approve = async () => (await boxOf(page, '#do-approve'))!;
    assert.ok((await bar()).bottom <= 844 && (await approve()).top >= 844 - 120, 'at the bottom of the screen');
    await js(page, 'window.scrollTo(0, document.documentElement.scrollHeight)');
    assert.ok((await bar()).bottom <= 844 && (await approve()).top >= 844 - 120, 'still there, scrolled down');
    const last = await boxOf(page, '.review-grid > :last-child');
    assert.ok(last && last.bottom <= (await bar()).top, 'the last of the card is not hidden behind the bar');
    assert.deepEqual(weakRings(await tabRings(page, 10)), [], 'focus rings on the phone card');

    await page.goto(`${w.url}/metrics-dashboard`);
    await page.locator('.charts figure').nth(6).waitFor();
    await waitUntil(page, 'document.querySelector("svg.chart")?.viewBox.baseVal.width < 480');
    const small = await smallestChartText(page);
    assert.ok(small >= 11, `chart labels on a phone are ${small.toFixed(1)} px`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await waitUntil(page, 'document.querySelector("svg.chart")?.viewBox.baseVal.width >= 480');
    assert.ok((await smallestChartText(page)) >= 11, 'and on a desktop');
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  it('keeps typed text per request across Escape, the dialog, another vote and a reload; drops it once decided', async () => {
    const req = await w.waitForRequest(await w.startThread('partial refund of $3000 for order ORD-78291'));
    const { page, errors } = await newPage(browser);
    await signInAs(page, w.url, w.tokens.sam, `/approvals/${req.id}`);
    await page.locator('article.review[data-status="pending"]').waitFor();
    const text = 'Too large for one refund: split it.';
    await page.keyboard.press('r');
    await page.locator('#reject-message').fill(text);
    await page.keyboard.press('Escape');
    await page.locator('#panel-reject').waitFor({ state: 'detached' });
    await page.keyboard.press('r');
    assert.equal(await page.locator('#reject-message').inputValue(), text, 'kept across Escape');
    await page.click('#reject-submit');
    await page.locator('dialog.confirm[open]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('dialog.confirm').waitFor({ state: 'detached' });
    assert.equal(await page.locator('#reject-message').inputValue(), text, 'kept across the dialog');

    // Another supervisor's vote: the card is drawn again at the next version, the panel and its text stay.
    const body = { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash };
    assert.equal(await w.decideAs('sue', req.id, body), 200);
    await page.locator('article.review[data-version="2"]').waitFor();
    await page.locator('#banner', { hasText: 'Another reviewer just approved this request' }).waitFor();
    assert.equal(await page.locator('#reject-message').inputValue(), text, 'kept across a live re-render');

    await page.keyboard.press('Escape');
    await page.keyboard.press('e');
    await page.locator('#edit-amount').fill('2500');
    await page.locator('#edit-diff tr[data-path="amount"]').waitFor();
    await page.reload();
    await page.locator('article.review[data-status="pending"]').waitFor();
    await page.keyboard.press('e');
    assert.equal(await page.locator('#edit-amount').inputValue(), '2500', 'the edit kept across a reload');
    await page.locator('#edit-diff tr[data-path="amount"]').waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('r');
    assert.equal(await page.locator('#reject-message').inputValue(), text);

    await page.click('#reject-submit');
    await page.locator('dialog.confirm[open]').waitFor();
    await page.keyboard.press('Enter');
    await page.locator('article.review[data-status="rejected"]').waitFor();
    const kept = await js(page, `Object.keys(sessionStorage).filter((k) => k.includes(${JSON.stringify(req.id)}))`);
    assert.deepEqual(kept, [], 'decided: its drafts are gone');
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  it('notifies of a new request for the reviewer’s roles, opted in, only while the tab is in the background', async () => {
    const { page, errors } = await newPage(browser);
    await page.context().grantPermissions(['notifications'], { origin: w.url });
    // Observe notifications (and stand in for a hidden tab): Playwright reports every page as focused and visible.
    await page.context().addInitScript(`(() => {
      const Real = window.Notification;
      window.__notes = [];
      window.__away = false;
      class Observed extends EventTarget {
        constructor(title, opts = {}) { super(); Object.assign(this, { title, body: opts.body, tag: opts.tag }); window.__notes.push(this); }
        close() { this.closed = true; }
        static get permission() { return Real.permission; }
        static requestPermission() { return Real.requestPermission(); }
      }
      window.Notification = Observed;
      Object.defineProperty(Document.prototype, 'visibilityState', { get: () => (window.__away ? 'hidden' : 'visible') });
      Document.prototype.hasFocus = () => !window.__away;
    })()`);
    await signInAs(page, w.url, w.tokens.sam);
    const toggle = page.locator('#notify-toggle');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await toggle.click();
    await page.locator('#notify-toggle[aria-pressed="true"]').waitFor();

    const seen = await w.waitForRequest(await w.startThread('partial refund of $700 for order ORD-999'));
    await page.locator(`.qitem[data-id="${seen.id}"]`).waitFor();
    assert.equal(await js(page, 'window.__notes.length'), 0, 'the reviewer is looking: the row is the news');
    await js(page, 'window.__away = true');
    await w.waitForRequest(await w.startThread('Please cancel my subscription SUB-7')); // not Sam's role
    const missed = await w.waitForRequest(await w.startThread('partial refund of $720 for order ORD-999'));
    await waitUntil(page, 'window.__notes.length > 0');
    assert.deepEqual(await js(page, 'window.__notes.map((n) => [n.title, n.tag])'), [
      ['New request: issue_refund', missed.id],
    ]);
    await js(page, 'window.__away = false; window.__notes[0].dispatchEvent(new Event("click"))');
    await page.waitForURL(`**/approvals/${missed.id}`);
    await page.locator('article.review[data-status="pending"]').waitFor();
    assert.equal(await js(page, 'document.activeElement?.id'), 'review-title', 'the click lands on the card');
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  it('batch: `a` works from a tick box, and a refusal says where the request stands now', async () => {
    const il = createInterlock({ store: w.svc.store, policy: orderSupportPolicy });
    const threadId = 'screen-batch';
    const calls = [710, 730].map((amount) => ({
      tool: 'issue_refund',
      args: { orderId: `ORD-${amount}`, customerId: 'test-001', amount },
    }));
    const { requests } = await il.pause({
      thread: { id: threadId, agent: 'screen', agentVersion: '1' },
      items: await Promise.all(
        calls.map(async (call, i) => ({ call, toolCallId: `c${i}`, verdict: await il.gate(call) })),
      ),
      proposer: 'agent:screen',
    });
    const { page, errors } = await newPage(browser);
    await signInAs(page, w.url, w.tokens.sam, `/batch?threadId=${threadId}`);
    await page.locator('.batch-item').nth(1).waitFor();
    await page.locator('#pick-1').focus();
    await page.keyboard.press('Space');
    await page.locator('#pick-2').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('a');
    await page.locator('dialog.confirm[open]').waitFor();
    const [taken] = requests;
    const body = { type: 'approve', expectedVersion: taken!.version, actionHash: taken!.actionHash };
    assert.equal(await w.decideAs('sue', taken!.id, body), 200);
    await page.keyboard.press('Enter');
    const line = page.locator(`.batch-item[data-id="${taken!.id}"] [data-outcome]`);
    await line.waitFor();
    assert.match(await line.innerText(), /refused: someone else decided this request first \(it is now authorized\)/);
    assert.doesNotMatch(await line.innerText(), /pending/);
    assert.deepEqual(errors, []);
    await page.context().close();
  });
});
