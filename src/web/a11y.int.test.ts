/**
 * axe-core on every page state of the reviewer UI, in Chromium against a real service (SQLite: the
 * pages are the same on both backends): sign-in, the queue empty and full, the help dialog, a card of
 * each kind (approve and escalate tier, a quorum vote counted, look-alike letters, an edit with its
 * diff, a failed execution, a decided planted check, a request the reviewer cannot decide), each
 * panel and confirm dialog open, the batch page and its confirm step and outcomes, the thread
 * timeline, the metrics dashboard, and the card on a phone. Zero violations, none disabled.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { orderSupportPolicy } from '../../examples/order-support/policy.ts';
import type { PolicyConfig, ToolPolicy } from '../core/index.ts';
import { createInterlock } from '../engine/index.ts';
import { axeViolations, describeViolations } from '../../test/support/axe.ts';
import { closeUiSuite, newPage, signInAs, startUiSuite, type UiWorld } from '../../test/support/browser-fixture.ts';

describe('axe-core finds no violation on any page state (Chromium, SQLite)', () => {
  let w: UiWorld;
  let browser: Browser;
  /** Every state's violations, reported together at the end of each test. */
  const found: string[] = [];
  const states: string[] = [];
  before(async () => ([w, browser] = await startUiSuite('sqlite')));
  after(() => closeUiSuite(browser, w));

  async function check(page: Page, state: string): Promise<void> {
    states.push(state);
    const vs = await axeViolations(page);
    if (vs.length) found.push(describeViolations(state, vs));
  }
  function assertClean(): void {
    assert.equal(found.join('\n'), '', `axe-core violations in ${found.length} of ${states.length} states`);
  }

  /** Open request `id`'s card and wait until it shows its status. */
  async function card(page: Page, id: string, status = 'pending'): Promise<void> {
    await page.goto(`${w.url}/approvals/${id}`);
    await page.locator(`article.review[data-status="${status}"]`).waitFor();
  }

  /** Open the confirm dialog with `open`, check it, and cancel it. */
  async function confirmOpen(page: Page, state: string, open: () => Promise<void>): Promise<void> {
    await open();
    await page.locator('dialog.confirm[open]').waitFor();
    await check(page, state);
    await page.keyboard.press('Escape');
    await page.locator('dialog.confirm').waitFor({ state: 'detached' });
  }

  it('sign-in, the empty queue, the help dialog and the metrics without data', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${w.url}/signin`);
    await page.locator('#token').waitFor();
    await check(page, 'sign-in');
    await page.fill('#token', 'not-a-token');
    await page.click('button[type="submit"]');
    await page.locator('.alert-error, [role="alert"]').first().waitFor();
    await check(page, 'sign-in refused');
    await signInAs(page, w.url, w.tokens.leo);
    await page.locator('#queue .empty').waitFor();
    await check(page, 'queue empty');
    await page.keyboard.press('?');
    await page.locator('#shortcuts[open]').waitFor();
    await check(page, 'queue: shortcuts dialog open');
    await page.keyboard.press('Escape');
    await page.goto(`${w.url}/metrics-dashboard`);
    await page.locator('.charts figure').first().waitFor();
    await check(page, 'metrics without data');
    // The refused sign-in answers 401, which Chromium logs; nothing else may.
    assert.deepEqual(
      errors.filter((e) => !e.includes('status of 401')),
      [],
    );
    await page.context().close();
    assertClean();
  });

  it('the queue full, cards of each kind with their panels and confirm dialogs, the thread and the metrics', async () => {
    const smallThread = await w.startThread('partial refund of $600 for order ORD-501');
    const small = await w.waitForRequest(smallThread);
    const quorum = await w.waitForRequest(await w.startThread('partial refund of $3000 for order ORD-78291'));
    const cancel = await w.waitForRequest(await w.startThread('Please cancel my subscription SUB-7'));
    const lookalike = await w.waitForRequest(
      await w.startThread('Can you change the delivery address of order ORD-78291 to 1 Мaple Dr'),
    );
    const { page, errors } = await newPage(browser);
    await signInAs(page, w.url, w.tokens.olivia);
    await page.locator('#queue-count[data-count="4"]').waitFor();
    await page.locator('.qitem').nth(3).waitFor();
    await check(page, 'queue full');
    await page.selectOption('#filter-group', 'tool');
    await page.locator('.qgroup-head').first().waitFor();
    await check(page, 'queue grouped by tool');
    await page.selectOption('#filter-group', '');
    await page.locator(`.qitem[data-id="${cancel.id}"] .qlink`).focus();
    const decided = { type: 'reject', expectedVersion: cancel.version, actionHash: cancel.actionHash };
    assert.equal(await w.decideAs('rita', cancel.id, decided), 200);
    await page.locator(`.qitem.is-decided[data-id="${cancel.id}"]`).waitFor();
    await check(page, 'queue with a row another reviewer decided');
    await page.emulateMedia({ colorScheme: 'dark' });
    await check(page, 'queue, dark colour scheme');
    await page.emulateMedia({ colorScheme: 'light' });

    // An approve-tier refund: each panel and each confirm dialog open.
    await card(page, small.id);
    await check(page, 'card: approve tier, pending');
    await confirmOpen(page, 'card: approve confirm open', () => page.keyboard.press('a'));
    await page.keyboard.press('e');
    await page.locator('#edit-amount').fill('550');
    await page.locator('#edit-diff tr[data-path="amount"]').waitFor();
    await check(page, 'card: edit panel with a diff');
    await confirmOpen(page, 'card: edit confirm open', () => page.click('#edit-submit'));
    await page.keyboard.press('Escape');
    await page.keyboard.press('r');
    await page.locator('#reject-message').fill('Not this one.');
    await check(page, 'card: reject panel');
    await confirmOpen(page, 'card: reject confirm open', () => page.click('#reject-submit'));
    await page.keyboard.press('Escape');
    await page.keyboard.press('n');
    await page.click('#respond-submit');
    await page.locator('#respond-message-error:not(:empty)').waitFor();
    await check(page, 'card: respond panel with its error');
    await page.keyboard.press('Escape');

    // Escalate tier, a quorum vote counted: as the second supervisor, and as the first (who cannot vote again).
    await card(page, quorum.id);
    await check(page, 'card: escalate tier, quorum');
    await page.keyboard.press('a');
    await page.locator('dialog.confirm[open]').waitFor();
    await page.keyboard.press('Enter');
    await page.locator('#banner.alert-ok').waitFor();
    await check(page, 'card: quorum vote counted (1 of 2), approve unavailable');
    await card(page, lookalike.id);
    await page.locator('#hidden-warning').waitFor();
    await check(page, 'card: look-alike letters');

    // Approved, it runs; a second refund of $600 on the same $640 order fails at execution.
    await card(page, small.id);
    await page.keyboard.press('a');
    await page.locator('dialog.confirm[open]').waitFor();
    await page.keyboard.press('Enter');
    await page.locator('article.review[data-status="executed"]').waitFor();
    await check(page, 'card: ran');
    const again = await w.waitForRequest(await w.startThread('partial refund of $600 for order ORD-501'));
    await card(page, again.id);
    await page.keyboard.press('a');
    await page.locator('dialog.confirm[open]').waitFor();
    await page.keyboard.press('Enter');
    await page.locator('article.review[data-status="failed"]').waitFor();
    await check(page, 'card: failed outcome');

    await page.goto(`${w.url}/threads/${smallThread}`);
    await page.locator('#thread-status[data-status="completed"]').waitFor();
    await check(page, 'thread timeline');
    await page.goto(`${w.url}/metrics-dashboard`);
    await page.locator('.charts figure').nth(6).waitFor();
    await check(page, 'metrics with data');
    await page.setViewportSize({ width: 390, height: 844 });
    await check(page, 'metrics on a phone');
    await card(page, quorum.id, 'pending');
    await check(page, 'card on a phone');
    await page.emulateMedia({ colorScheme: 'dark' });
    await check(page, 'card on a phone, dark colour scheme');
    assert.deepEqual(errors, []);
    await page.context().close();
    assertClean();
  });

  it('a decided planted check, the batch page with its warnings, confirm step and outcomes', async () => {
    const refunds = orderSupportPolicy.tools.issue_refund as ToolPolicy;
    const policy: PolicyConfig = {
      tools: {
        issue_refund: {
          ...refunds,
          rules: refunds.rules.map((r) =>
            r.id === 'refund-over-500'
              ? { ...r, plant: { rate: 1, template: ({ args }) => ({ args: { ...args, customerId: 'test-005' } }) } }
              : r,
          ),
        },
      },
    };
    const il = createInterlock({ store: w.svc.store, policy, random: () => 0 });
    const threadId = 'a11y-batch';
    const calls = [700, 700, 720].map((amount) => ({
      tool: 'issue_refund',
      args: { orderId: 'ORD-999', customerId: 'test-001', amount },
    }));
    await il.pause({
      thread: { id: threadId, agent: 'a11y', agentVersion: '1' },
      items: await Promise.all(
        calls.map(async (call, i) => ({ call, toolCallId: `call_a11y_${i}`, verdict: await il.gate(call) })),
      ),
      proposer: 'agent:a11y',
    });
    const { page, errors } = await newPage(browser);
    await signInAs(page, w.url, w.tokens.sue, `/batch?threadId=${threadId}`);
    await page.locator('.batch-item').nth(2).waitFor();
    await check(page, 'batch page with warnings');
    for (const box of await page.locator('.batch-item input[type="checkbox"]').all()) await box.check();
    await page.keyboard.press('a');
    await page.locator('dialog.confirm[open]').waitFor();
    await check(page, 'batch confirm step open');
    await page.keyboard.press('Enter');
    await page.locator('#batch-result').waitFor();
    await page.locator('.batch-item [data-outcome="notrun"]').first().waitFor();
    await check(page, 'batch outcomes');

    const planted = (await w.svc.store.listRequests({ threadId, planted: true })).items[0]!;
    await card(page, planted.id, planted.status);
    await page.locator('#planted-check').waitFor();
    await check(page, 'card: decided planted check');
    assert.deepEqual(errors, []);
    await page.context().close();
    assertClean();
  });
});
