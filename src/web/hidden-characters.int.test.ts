/**
 * Issue 20 B1 in Chromium: an argument carrying a right-to-left override
 * (`"\u202e24-CCA"` reads as `ACC-42`) is shown marked on every part of the
 * card and the timeline, with a warning, and approving runs the exact bytes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { z } from 'zod';
import { createAgent, tool } from '../index.ts';
import { defineConfig } from '../service/config.ts';
import { startService, type Service } from '../service/service.ts';
import { TEST_DATABASE_URL } from '../testing/backends.ts';
import { fetchJson } from '../testing/http.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { launchChromium, newPage, signInAs } from '../../test/support/browser-fixture.ts';

const SPOOF = '\u202e24-CCA';
const MARKED = '⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩24-CCA';

interface World {
  svc: Service;
  url: string;
  executed: unknown[];
  token(first: string): string;
  cleanup(): Promise<void>;
}

async function startWorld(backend: 'sqlite' | 'postgres'): Promise<World> {
  const executed: unknown[] = [];
  const config = defineConfig({
    policy: {
      tools: { transfer: [{ id: 'transfers', tier: 'approve', role: 'finance', reason: 'money leaves the company' }] },
    },
    agents: ({ interlock }) => [
      createAgent({
        name: 'payer',
        version: '1.0.0',
        system: 'You pay invoices.',
        interlock,
        // The customer's message is the payee account, as the model would copy it.
        model: scriptedModel((ctx) =>
          ctx.lastToolResults.length
            ? { text: 'Paid.' }
            : { toolCalls: [{ name: 'transfer', args: { to: ctx.lastUserText, amount: 40 } }] },
        ),
        tools: [
          tool({
            name: 'transfer',
            description: 'Send money to an account',
            schema: z.object({ to: z.string(), amount: z.number() }),
            execute: async (args) => {
              executed.push(args.to);
              return { sent: true };
            },
          }),
        ],
      }),
    ],
    demo: {
      reviewers: [
        { name: 'Olivia Operator', roles: ['operator', 'finance'] },
        { name: 'Fay \u200bFinance', roles: ['finance'] },
      ],
    },
  });
  let dir: string | undefined;
  let schema: string | undefined;
  let databaseUrl: string;
  if (backend === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), 'interlock-hidden-'));
    databaseUrl = join(dir, 'interlock.db');
  } else {
    schema = `il_hid_${randomBytes(5).toString('hex')}`;
    databaseUrl = TEST_DATABASE_URL;
    process.env.INTERLOCK_PG_SCHEMA = schema;
  }
  const cleanup = async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (schema) {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await c.end();
      }
    }
  };
  try {
    const svc = await startService({ config, databaseUrl, port: 0, pollMs: 40, log: () => {} });
    const url = svc.url!.replace('localhost', '127.0.0.1');
    return {
      svc,
      url,
      executed,
      cleanup,
      token: (first) => svc.demoTokens.find((t) => t.name.toLowerCase().startsWith(first))!.token,
    };
  } catch (err) {
    await cleanup();
    throw err;
  } finally {
    delete process.env.INTERLOCK_PG_SCHEMA;
  }
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`hidden characters in the reviewer UI on ${backend}`, () => {
    let w: World;
    let browser: Browser;
    before(async () => {
      const [world, chromium] = await Promise.allSettled([startWorld(backend), launchChromium()]);
      if (world.status === 'fulfilled') w = world.value;
      if (chromium.status === 'fulfilled') browser = chromium.value;
      if (world.status === 'rejected') throw world.reason;
      if (chromium.status === 'rejected') throw chromium.reason;
    });
    after(async () => {
      await browser?.close();
      await w?.svc.close();
      await w?.cleanup();
    });

    async function startThread(
      input: string,
    ): Promise<{ threadId: string; id: string; version: number; actionHash: string; args: { to: string } }> {
      const olivia = w.token('olivia');
      const r = await fetchJson<{ threadId: string }>(`${w.url}/api/v1/threads`, {
        token: olivia,
        body: { agent: 'payer', input },
      });
      assert.equal(r.status, 202);
      const threadId = r.body.threadId;
      for (;;) {
        const q = await fetchJson<{
          items: Array<{ id: string; version: number; actionHash: string; args: { to: string } }>;
        }>(`${w.url}/api/v1/approvals?threadId=${threadId}&status=pending`, { token: olivia });
        if (q.body.items[0]) return { threadId, ...q.body.items[0] };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    it('the card table, JSON view, edit form and timeline mark the override; approving runs the exact bytes', async () => {
      const req = await startThread(SPOOF);
      assert.equal(req.args.to, SPOOF, 'the API keeps the exact bytes');
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.token('fay'), '/');
      const item = page.locator(`.qitem[data-id="${req.id}"]`);
      await item.waitFor();
      assert.equal(await item.locator('.qargs').innerText(), `to: ${MARKED} · amount: 40`, 'the queue line is marked');
      assert.equal(await item.locator('.chip-hidden').count(), 1, 'the queue item carries a warning chip');

      await page.goto(`${w.url}/approvals/${req.id}`);
      await page.locator('article.review[data-status="pending"]').waitFor();

      const warning = page.locator('#hidden-warning');
      assert.match(await warning.innerText(), /This action contains hidden characters: U\+202E RIGHT-TO-LEFT OVERRIDE/);
      const cell = await page.locator('table.args td').first().innerText();
      assert.equal(cell, MARKED, 'the "What will run" table shows the marker, not ACC-42');
      assert.equal(await page.locator('table.args .hidden-char').count(), 1, 'the marker is styled apart');
      assert.match(
        (await page.locator('#exact-args').textContent()) ?? '',
        /"to": "⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩24-CCA"/,
      );
      assert.ok(
        !(await page.locator('article.review').innerText()).includes('\u202e'),
        'no raw override anywhere on the card',
      );

      await page.click('#do-edit');
      const note = page.locator('#edit-to-hidden, .field-warning').first();
      await note.waitFor();
      assert.match(await note.innerText(), /Hidden characters in this value \(U\+202E RIGHT-TO-LEFT OVERRIDE\)/);
      assert.equal(await page.inputValue('.schema-form input[name="to"]'), SPOOF, 'the edit box keeps the exact value');

      await page.click('#do-approve');
      await page.locator('dialog.confirm').waitFor();
      await page.keyboard.press('Enter');
      await page.locator('article.review:not([data-status="pending"])').waitFor();

      await page.goto(`${w.url}/threads/${req.threadId}`);
      await page.waitForSelector('#thread-status[data-status="completed"]');
      const conversation = await page.locator('section.conversation').innerText();
      assert.match(
        conversation,
        /⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩24-CCA/,
        'the customer message and the tool call are marked',
      );
      assert.ok(!conversation.includes('\u202e'));
      assert.equal(
        await page.locator('.who-name').innerText(),
        'Fay ⟨U+200B ZERO WIDTH SPACE⟩Finance',
        'a reviewer name is marked too',
      );
      assert.deepEqual(w.executed, [SPOOF], 'the tool ran with the exact original bytes');
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    it('a reject message is marked on the card', async () => {
      const req = await startThread('ACC-7');
      const r = await fetchJson(`${w.url}/api/v1/approvals/${req.id}/decision`, {
        token: w.token('olivia'),
        body: {
          type: 'reject',
          message: 'wrong \u202eEGASSEM',
          expectedVersion: req.version,
          actionHash: req.actionHash,
        },
      });
      assert.equal(r.status, 200);
      const { page, errors } = await newPage(browser);
      await signInAs(page, w.url, w.token('fay'), `/approvals/${req.id}`);
      await page.locator('article.review:not([data-status="pending"])').waitFor();
      assert.match(await page.locator('article.review').innerText(), /wrong ⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩EGASSEM/);
      assert.equal(await page.locator('#hidden-warning').count(), 0, 'the arguments themselves are clean');
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  });
}
