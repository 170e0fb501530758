/**
 * The browser tests' world: a real service (store, engine, order-support agent,
 * worker, HTTP API and UI) started in-process on a fresh database, and Debian's
 * Chromium driven by playwright-core. Not part of the API.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createOrderSupportAgent } from '../../examples/order-support/agent.ts';
import { orderSupportPolicy } from '../../examples/order-support/policy.ts';
import { orderSupportScriptedModel } from '../../examples/order-support/scripted-support-model.ts';
import { createShopBackend, type ShopBackend } from '../../examples/order-support/tools.ts';
import { defineConfig } from '../../src/service/config.ts';
import { startService, type Service } from '../../src/service/service.ts';
import { TEST_DATABASE_URL } from '../../src/testing/backends.ts';
import { fetchJson } from '../../src/testing/http.ts';

/** Debian's Chromium; never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
];

/** Demo reviewers of the test service, by first name. */
export type Reviewer = 'olivia' | 'sam' | 'sue' | 'rita' | 'leo';

export interface UiWorld {
  svc: Service;
  url: string;
  shop: ShopBackend;
  tokens: Record<Reviewer, string>;
  /** Lines the service logged (kept off the console). */
  logs: string[];
  /** Start a conversation as the operator; returns the thread id. */
  startThread(input: string): Promise<string>;
  /** The first pending request of the thread, once the agent has paused. */
  waitForRequest(
    threadId: string,
  ): Promise<{ id: string; version: number; actionHash: string; tool: string; args: Record<string, unknown> }>;
  /** Decide as `who` with a bearer token (another reviewer, elsewhere). */
  decideAs(who: Reviewer, id: string, body: Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
}

/** Start the service on a fresh SQLite file or PostgreSQL schema, with its own shop and demo reviewers. */
export async function startUiWorld(backend: 'sqlite' | 'postgres'): Promise<UiWorld> {
  const shop = createShopBackend();
  const config = defineConfig({
    policy: orderSupportPolicy,
    agents: ({ interlock }) => [createOrderSupportAgent({ interlock, model: orderSupportScriptedModel(), shop })],
    demo: {
      reviewers: [
        { name: 'Olivia Operator', roles: ['operator', 'supervisor', 'retention_lead', 'logistics', 'legal'] },
        { name: 'Sam Supervisor', roles: ['supervisor'] },
        { name: 'Sue Supervisor', roles: ['supervisor'] },
        { name: 'Rita Retention', roles: ['retention_lead'] },
        { name: 'Leo Logistics', roles: ['logistics'] },
      ],
    },
  });
  let dir: string | undefined;
  let schema: string | undefined;
  let databaseUrl: string;
  if (backend === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), 'interlock-ui-'));
    databaseUrl = join(dir, 'interlock.db');
  } else {
    schema = `il_ui_${randomBytes(5).toString('hex')}`;
    databaseUrl = TEST_DATABASE_URL;
    process.env.INTERLOCK_PG_SCHEMA = schema;
  }
  const logs: string[] = [];
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
  let svc: Service;
  try {
    svc = await startService({ config, databaseUrl, port: 0, pollMs: 40, log: (l) => logs.push(l) });
  } catch (err) {
    await cleanup();
    throw err;
  } finally {
    delete process.env.INTERLOCK_PG_SCHEMA;
  }
  const url = svc.url!.replace('localhost', '127.0.0.1');
  const byName = (first: string) => svc.demoTokens.find((t) => t.name.toLowerCase().startsWith(first))!.token;
  const tokens: Record<Reviewer, string> = {
    olivia: byName('olivia'),
    sam: byName('sam'),
    sue: byName('sue'),
    rita: byName('rita'),
    leo: byName('leo'),
  };
  const call = <T>(path: string, token: string, body?: unknown) =>
    fetchJson<T>(url + path, { token, ...(body === undefined ? {} : { body }) });
  return {
    svc,
    url,
    shop,
    tokens,
    logs,
    async startThread(input) {
      const r = await call<{ threadId: string }>('/api/v1/threads', tokens.olivia, { agent: 'order-support', input });
      if (r.status !== 202) throw new Error(`starting a thread failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.threadId;
    },
    async waitForRequest(threadId) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const r = await call<{
          items: Array<{
            id: string;
            version: number;
            actionHash: string;
            tool: string;
            args: Record<string, unknown>;
          }>;
        }>(`/api/v1/approvals?threadId=${threadId}&status=pending`, tokens.olivia);
        if (r.body.items[0]) return r.body.items[0];
        if (Date.now() > deadline)
          throw new Error(`no pending request in ${threadId}; service log:\n${logs.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async decideAs(who, id, body) {
      return (await call(`/api/v1/approvals/${id}/decision`, tokens[who], body)).status;
    },
    async close() {
      await svc.close();
      await cleanup();
    },
  };
}

/** Launch headless Chromium from Debian's package. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 });
}

/** A page that records script errors and console errors, for the tests to assert there were none. */
export async function newPage(
  browser: Browser,
  viewport = { width: 1280, height: 900 },
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return { page, errors };
}

/** Evaluate a JavaScript expression in the page (written as text: this file is not compiled with the DOM types). */
export function js(page: Page, expression: string): Promise<unknown> {
  return page.evaluate(expression);
}

/** Sign in through the form, as a person would, and land on `path`. */
export async function signInAs(page: Page, url: string, token: string, path = '/'): Promise<void> {
  await page.goto(url + path);
  await page.waitForURL(/\/signin/);
  await page.fill('#token', token);
  await page.click('button[type="submit"]');
  await page.waitForURL((u) => !u.pathname.startsWith('/signin'));
  await page.waitForSelector('#live[data-state="live"]');
}

/**
 * A browser suite's world and Chromium, started side by side; if either fails, the
 * other is closed and the failure is thrown. Pair with {@link closeUiSuite} in `after`.
 * @example
 * before(async () => ([w, browser] = await startUiSuite(backend)));
 * after(() => closeUiSuite(browser, w));
 */
export async function startUiSuite(backend: 'sqlite' | 'postgres'): Promise<[UiWorld, Browser]> {
  const [world, chromium] = await Promise.allSettled([startUiWorld(backend), launchChromium()]);
  if (world.status === 'fulfilled' && chromium.status === 'fulfilled') return [world.value, chromium.value];
  if (world.status === 'fulfilled') await world.value.close();
  if (chromium.status === 'fulfilled') await chromium.value.close();
  throw world.status === 'rejected' ? world.reason : (chromium as PromiseRejectedResult).reason;
}

/** Close what {@link startUiSuite} started (either may be missing when it failed). */
export async function closeUiSuite(browser: Browser | undefined, w: UiWorld | undefined): Promise<void> {
  await browser?.close();
  await w?.close();
}
