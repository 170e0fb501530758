/**
 * What the pages say and how they lay text out: unbroken text never widens a
 * page, people are named rather than shown as ids, and the sign-in page gives
 * the command that works where the reader is — in Chromium against a real
 * service, on both backends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { createInterlock } from '../engine/index.ts';
import { FakePayments } from '../testing/fake-payments.ts';
import { supportTree, treePolicy } from '../testing/multi-agent-fixture.ts';
import { closeUiSuite, startUiSuite, js, newPage, signInAs, type UiWorld } from '../../test/support/browser-fixture.ts';

/** The page's width, and the widest element, when it is wider than the window. */
async function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; widest: string }> {
  return (await js(
    page,
    `({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
        widest: [...document.querySelectorAll('body *')].filter((e) => e.scrollWidth > window.innerWidth).map((e) => e.tagName + '.' + e.className).pop() ?? '' })`,
  )) as { scrollWidth: number; innerWidth: number; widest: string };
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`page text in Chromium on ${backend}`, () => {
    let w: UiWorld;
    let browser: Browser;
    before(async () => ([w, browser] = await startUiSuite(backend)));
    after(() => closeUiSuite(browser, w));

    it('a 10,000-character message without spaces never makes a page wider than the window', async () => {
      const unbroken = 'x'.repeat(10_000);
      const threadId = await w.startThread(`partial refund of $700 for order ORD-999 ${unbroken}`);
      const req = await w.waitForRequest(threadId);
      assert.equal(
        await w.decideAs('sam', req.id, {
          type: 'reject',
          message: 'y'.repeat(10_000),
          expectedVersion: req.version,
          actionHash: req.actionHash,
        }),
        200,
      );
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 390, height: 844 },
      ]) {
        const { page, errors } = await newPage(browser, viewport);
        await signInAs(page, w.url, w.tokens.olivia, `/threads/${threadId}`);
        await page.locator('.interrupt .decisions li', { hasText: 'rejected by' }).waitFor();
        await page.locator('#audit-events li[data-type="rejected"]').waitFor();
        const thread = await overflow(page);
        assert.ok(
          thread.scrollWidth <= thread.innerWidth,
          `timeline at ${viewport.width} px is ${thread.scrollWidth} px wide (${thread.widest})`,
        );
        await page.goto(`${w.url}/approvals/${req.id}`);
        await page.locator('article.review[data-status="rejected"]').waitFor();
        const card = await overflow(page);
        assert.ok(
          card.scrollWidth <= card.innerWidth,
          `card at ${viewport.width} px is ${card.scrollWidth} px wide (${card.widest})`,
        );
        assert.deepEqual(errors, []);
        await page.context().close();
      }
    });

    it('after an edit the executed card counts the edit as the approval and says what changed, by name', async () => {
      const req = await w.waitForRequest(await w.startThread('I need a full refund for order ORD-999'));
      assert.equal(req.args.amount, 850);
      assert.equal(
        await w.decideAs('sam', req.id, {
          type: 'edit',
          args: { ...req.args, amount: 600 },
          expectedVersion: req.version,
          actionHash: req.actionHash,
        }),
        200,
      );
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sue, `/approvals/${req.id}`);
      await page.locator('article.review[data-status="executed"]').waitFor();
      const head = await page.locator('.review-sub').innerText();
      assert.match(head, /1\/1 approvals/);
      assert.doesNotMatch(head, /0\/1/);
      assert.equal(await page.locator('#approvals').innerText(), '1 of 1 received');
      assert.deepEqual(await page.locator('table.args tr').allInnerTexts(), [
        'orderId\tORD-999',
        'customerId\ttest-001',
        'amount\t600',
      ]);
      assert.equal(await page.locator('#edit-line').innerText(), 'Then edited by Sam Supervisor: amount 850 → 600.');
      const facts = await page.locator('.facts').innerText();
      assert.match(
        facts,
        /Reason\s+The proposal paused because: refund of \$850 is over \$500\. Then edited by Sam Supervisor: amount 850 → 600\./,
      );
      assert.match(facts, /Decision\s+edited by Sam Supervisor at/);
      assert.doesNotMatch(facts, /rev_/, 'names, not ids');
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('names the reviewer who decided, not their id', async () => {
      const req = await w.waitForRequest(await w.startThread('partial refund of $730 for order ORD-78291'));
      assert.equal(
        await w.decideAs('sue', req.id, {
          type: 'reject',
          message: 'duplicate',
          expectedVersion: req.version,
          actionHash: req.actionHash,
        }),
        200,
      );
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, `/approvals/${req.id}`);
      await page.locator('article.review[data-status="rejected"]').waitFor();
      const facts = await page.locator('.facts').innerText();
      assert.match(facts, /Decision\s+rejected by Sue Supervisor at/);
      assert.match(facts, /Proposed by\s+agent:order-support/);
      assert.doesNotMatch(facts, /rev_/);
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('a tree of agents: the card names the path, the root thread nests the sub-agent under its call', async () => {
      // A support → refunds tree on the service's database (its own policy knows the delegating tool).
      const il = createInterlock({ store: w.svc.store, policy: treePolicy });
      const t = supportTree(il, new FakePayments());
      const rootId = `tree-ui-${backend}`;
      const r = await t.support.invoke('Please refund $850', { threadId: rootId });
      const id = r.interrupts[0]!.id;
      const childId = (await il.getRequestOrThrow(id)).threadId;
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.tokens.sam, `/approvals/${id}`);
      await page.locator('article.review[data-status="pending"]').waitFor();
      assert.equal((await page.locator('.agent-path').textContent())?.trim(), '(support › refunds)');
      await page.goto(`${w.url}/threads/${rootId}`);
      const nested = page.locator(`.call .subagent[data-child-thread="${childId}"]`);
      await nested.waitFor();
      assert.match((await nested.textContent()) ?? '', /Sub-agent refunds.*Paused for approval: issue_refund/s);
      assert.equal(await nested.locator(`a[href="/approvals/${id}"]`).count(), 1);
      await page.goto(`${w.url}/threads/${childId}`);
      await page.locator('.tree-note').waitFor();
      assert.match((await page.locator('.tree-note').textContent()) ?? '', /support › refunds/);
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('a planted check reads like any card until decided; then the card says so; only operators see review quality', async () => {
      // A planting rule on the service's database: every pause of this rule places a check beside it.
      const il = createInterlock({
        store: w.svc.store,
        random: () => 0,
        policy: {
          tools: {
            issue_refund: [
              {
                id: 'large',
                tier: 'approve',
                role: 'supervisor',
                reason: 'refund over $500',
                plant: { rate: 1, template: ({ args }) => ({ args: { ...args, orderId: 'ORD-00000' } }) },
              },
            ],
          },
        },
      });
      const args = { orderId: 'ORD-999', customerId: 'test-001', amount: 640, reason: 'damaged' };
      const verdict = await il.gate({ tool: 'issue_refund', args });
      const threadId = `planted-ui-${backend}`;
      const { requests } = await il.pause({
        thread: { id: threadId, agent: 'order-support', agentVersion: '1.0.0' },
        items: [
          {
            call: { tool: 'issue_refund', args },
            toolCallId: 'call_real',
            verdict,
            evidence: { customerMessage: 'hi' },
          },
        ],
        proposer: 'agent:order-support',
      });
      const real = requests[0]!;
      const check = (await w.svc.store.listRequests({ threadId, planted: true })).items[0]!;
      const { page, errors } = await newPage(browser);
      const facts = async (id: string) => {
        await page.goto(`${w.url}/approvals/${id}`);
        await page.locator('article.review[data-status="pending"]').waitFor();
        return page.locator('dl.facts dt').allInnerTexts();
      };
      await signInAs(page, w.url, w.tokens.sam, `/approvals/${real.id}`);
      const realFacts = await facts(real.id);
      assert.deepEqual(await facts(check.id), realFacts, 'the same card, fact for fact');
      assert.equal(await page.locator('#planted-check').count(), 0);
      assert.equal(
        await w.decideAs('sam', check.id, {
          type: 'reject',
          message: 'no such order',
          expectedVersion: check.version,
          actionHash: check.actionHash,
        }),
        200,
      );
      await page.goto(`${w.url}/approvals/${check.id}`);
      await page.locator('#planted-check').waitFor();
      assert.match(await page.locator('#planted-check').innerText(), /planted check.*caught/s);
      // Review quality is for operators: a supervisor's metrics page has none of it.
      await page.goto(`${w.url}/metrics-dashboard`);
      await page.locator('#kpi-autonomous').waitFor();
      assert.equal(await page.locator('#oversight').count(), 0);
      assert.deepEqual(errors, []);
      await page.context().close();
      // An operator's review-quality panels name the reviewer, never by id.
      const op = await newPage(browser);
      await signInAs(op.page, w.url, w.tokens.olivia, '/metrics-dashboard');
      await op.page.locator('#oversight').waitFor();
      const panel = await op.page.locator('#oversight').textContent();
      assert.match(panel ?? '', /Sam Supervisor/);
      assert.doesNotMatch(panel ?? '', /rev_[0-9a-z]{6,}/);
      assert.deepEqual(op.errors, []);
      await op.page.context().close();
    });

    it('the sign-in page gives the command for an installed Interlock and the one inside the repository', async () => {
      const { page, errors } = await newPage(browser);
      await page.goto(`${w.url}/signin`);
      const help = await page.locator('#signin-help').innerText();
      assert.match(help, /interlock reviewers add --name NAME --roles ROLE where Interlock is installed/);
      assert.match(
        help,
        /npm run interlock -- reviewers add --name NAME --roles ROLE inside a clone of the repository/,
      );
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  });
}
