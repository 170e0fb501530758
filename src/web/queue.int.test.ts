/**
 * The queue page with a thousand requests waiting: a page at a time with the server's count,
 * search by text and by argument, sorts, live decisions and arrivals that keep the reviewer's
 * place, undecidable and look-alike rows marked — in Chromium against a real service, on both backends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { PauseItem } from '../engine/index.ts';
import { closeUiSuite, js, newPage, signInAs, startUiSuite, type UiWorld } from '../../test/support/browser-fixture.ts';

const SEEDED = 1050;

type Pending = { id: string; version: number; actionHash: string };

/**
 * Pause `calls` through the service's engine, 100 to a thread: fast, and no browser involved. Calls
 * alike share one policy verdict; then the notification jobs are let drain, so the tests that follow
 * do not share the service with a thousand deliveries.
 */
async function seed(w: UiWorld, calls: Array<{ tool: string; args: Record<string, unknown> }>, proposer: string) {
  const il = w.svc.interlock;
  const since = Date.now() - 1;
  const verdicts = new Map<string, Awaited<ReturnType<typeof il.gate>>>();
  const out: Pending[] = [];
  for (let i = 0; i < calls.length; i += 100) {
    const items: PauseItem[] = [];
    for (const call of calls.slice(i, i + 100)) {
      const key = `${call.tool}:${String(call.args.amount)}`;
      if (!verdicts.has(key)) verdicts.set(key, await il.gate(call));
      items.push({ call, verdict: verdicts.get(key)! });
    }
    const { requests } = await il.pause({
      thread: { id: `seed-${Date.now()}-${i}-${Math.random()}`, agent: 'seeded', agentVersion: '1' },
      items,
      proposer,
    });
    out.push(...requests);
  }
  while ((await w.svc.store.countJobs('notify', since)).ready > 0) await new Promise((r) => setTimeout(r, 50));
  return out;
}

const refund = (i: number, amount = 501 + (i % 50) * 8) => ({
  tool: 'issue_refund',
  args: { orderId: `ORD-${i}`, customerId: `c${i % 50}`, amount, reason: 'damaged' },
});

const rowIds = (page: Page) =>
  js(page, `[...document.querySelectorAll('#queue li.qitem')].map((e) => e.dataset.id)`) as Promise<string[]>;
const focusedId = (page: Page) => js(page, `document.activeElement?.closest('li.qitem')?.dataset.id ?? null`);
const topOf = (page: Page, id: string) =>
  js(page, `document.querySelector('li.qitem[data-id="${id}"]').getBoundingClientRect().top`) as Promise<number>;

async function openQueue(page: Page, w: UiWorld, query = ''): Promise<void> {
  await page.goto(`${w.url}/${query}`);
  await page.locator('#queue li.qitem').first().waitFor();
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`queue page with ${SEEDED}+ requests in Chromium on ${backend}`, () => {
    let w: UiWorld;
    let browser: Browser;
    let samId: string;
    let total: number;
    let big: Pending;
    let own: Pending;
    before(async () => {
      [w, browser] = await startUiSuite(backend);
      samId = (await w.svc.store.listReviewers()).find((r) => r.name === 'Sam Supervisor')!.id;
      await seed(
        w,
        Array.from({ length: SEEDED }, (_, i) => refund(i)),
        'agent:seeded',
      );
      [big] = (await seed(w, [refund(5000, 9999)], 'agent:seeded')) as [Pending]; // two supervisors must approve
      // An edit of Sam's made a request he proposed; and a look-alike (Cyrillic а) in an address.
      [own] = (await seed(w, [refund(5001, 777)], samId)) as [Pending];
      await seed(
        w,
        [{ tool: 'send_email', args: { to: 'billing@pаypal.com', subject: 'Refund', reason: 'look' } }],
        'agent:seeded',
      );
      total = SEEDED + 3;
    });
    after(() => closeUiSuite(browser, w));

    it('renders one page, not a thousand rows, with the count from the server; Show more adds the next', async () => {
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam);
      await page.locator('#queue li.qitem').first().waitFor();
      assert.equal(await page.locator('#queue li.qitem').count(), 50);
      assert.equal(await page.locator('#queue-count-head').innerText(), String(total));
      assert.equal(await page.locator('#queue-count').innerText(), String(total));
      assert.match(await page.locator('#queue-summary').innerText(), new RegExp(`${total} pending · showing 50`));
      const nodes = (await js(page, 'document.querySelectorAll("*").length')) as number;
      assert.ok(nodes < 3000, `a page of DOM, not 16,000 nodes: ${nodes}`);
      await page.locator('#queue-more').click();
      await page.locator('#queue li.qitem >> nth=99').waitFor();
      assert.equal(await page.locator('#queue li.qitem').count(), 100);
      assert.equal(new Set(await rowIds(page)).size, 100, 'no row twice');
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('searches by text and by argument value, on the server', async () => {
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam);
      await page.locator('#queue li.qitem').first().waitFor();
      await page.keyboard.press('/');
      await page.keyboard.type('ord-1007');
      await page.waitForURL(/q=ord-1007/);
      await page.locator('#queue-count-head', { hasText: /^1$/ }).waitFor();
      assert.match(await page.locator('#queue li.qitem').innerText(), /ORD-1007/);
      await page.fill('#filter-q', 'customerId:c7');
      await page.locator('#queue-count-head', { hasText: /^21$/ }).waitFor();
      assert.equal(await page.locator('#queue li.qitem').count(), 21);
      assert.equal(await page.locator('#queue-count').innerText(), String(total), 'the top bar counts everything');
      await openQueue(page, w, '?subject=orderId:ORD-12');
      await page.locator('#queue-count-head', { hasText: /^1$/ }).waitFor();
      assert.deepEqual(await page.locator('#queue .qargs').allInnerTexts(), [
        'orderId: ORD-12 · customerId: c12 · amount: 597 · reason: damaged',
      ]);
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('sorts by amount and by newest; a new arrival appears first when sorted by newest, without moving the rows in view', async () => {
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, '/?sort=amount');
      await page.locator('#queue li.qitem').first().waitFor();
      assert.equal((await rowIds(page))[0], big.id);
      assert.match(await page.locator('#queue li.qitem >> nth=1').innerText(), /amount: 893/);
      await page.selectOption('#filter-sort', 'newest');
      await page.waitForURL(/sort=newest/);
      await page.locator('#queue li.qitem >> nth=0', { hasText: 'send_email' }).waitFor();
      // Scroll so row 10 is at the top of the screen, then a request arrives above it.
      const ids = await rowIds(page);
      await js(page, `document.querySelector('li.qitem[data-id="${ids[10]}"]').scrollIntoView({ block: 'start' })`);
      const before = await topOf(page, ids[10]!);
      const [arrived] = await seed(w, [refund(7000, 650)], 'agent:seeded');
      await page.locator(`#queue li.qitem[data-id="${arrived!.id}"].is-new`).waitFor();
      assert.equal((await rowIds(page))[0], arrived!.id, 'newest first');
      assert.ok(Math.abs((await topOf(page, ids[10]!)) - before) < 1, 'what the reviewer looks at did not move');
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('a decision by another reviewer greys its row and names them; focus, place and j stay', async () => {
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam);
      await page.locator('#queue li.qitem').first().waitFor();
      const ids = await rowIds(page);
      for (let i = 0; i < 3; i++) await page.keyboard.press('j');
      assert.equal(await focusedId(page), ids[2]);
      const before = await topOf(page, ids[2]!);
      const first = await w.svc.interlock.getRequestOrThrow(ids[0]!);
      const status = await w.decideAs('sue', first.id, {
        type: 'reject',
        expectedVersion: first.version,
        actionHash: first.actionHash,
      });
      assert.equal(status, 200);
      const decided = page.locator(`li.qitem.is-decided[data-id="${first.id}"]`);
      await decided.waitFor();
      assert.match(await decided.locator('.qdecided').innerText(), /rejected by Sue Supervisor/);
      assert.equal(await focusedId(page), ids[2], 'focus stayed on the row');
      // Scroll offsets snap to device pixels: "did not move" is within one pixel.
      assert.ok(Math.abs((await topOf(page, ids[2]!)) - before) < 1, 'the row did not move');
      await page.keyboard.press('j');
      assert.equal(await focusedId(page), ids[3], 'j continues from there');
      await page.keyboard.press('k');
      await page.keyboard.press('k');
      await page.keyboard.press('k');
      assert.equal(await focusedId(page), ids[0], 'the decided row is still there to read');
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('marks what this reviewer cannot decide, and j stops on it all the same', async () => {
      assert.equal(
        await w.decideAs('sam', big.id, { type: 'approve', expectedVersion: big.version, actionHash: big.actionHash }),
        200,
      );
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, '/?sort=amount');
      const voted = page.locator(`li.qitem[data-id="${big.id}"]`);
      await voted.waitFor();
      assert.equal(await voted.getAttribute('data-cannot'), 'duplicate_reviewer');
      assert.equal(await voted.locator('.chip-cannot').innerText(), 'your vote is in — waiting for a second reviewer');
      await page.keyboard.press('j');
      assert.equal(await focusedId(page), big.id, 'not skipped');
      await openQueue(page, w, '?q=orderId:ORD-5001');
      const mine = page.locator(`li.qitem[data-id="${own.id}"]`);
      await mine.waitFor();
      assert.match(await mine.locator('.chip-cannot').innerText(), /you proposed this edit/);
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/approvals/${own.id}$`));
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('flags look-alike letters on the row', async () => {
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, '/?q=billing');
      const row = page.locator('#queue li.qitem');
      await row.first().waitFor();
      assert.equal(await row.count(), 1);
      assert.match(await row.locator('.chip-lookalike').innerText(), /look-alike letters: pаypal/);
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  });
}
