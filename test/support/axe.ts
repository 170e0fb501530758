/**
 * Accessibility checks of the browser tests: axe-core injected into the page (from node_modules,
 * never fetched) and run over the whole document as it stands — open dialogs included. Not part of
 * the API.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeSource: string | undefined;

/** One axe-core violation as the tests report it: the rule, its impact and where. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string; summary: string }>;
}

/**
 * Run axe-core over `page` as it is now and answer its violations (the WCAG 2.x A and AA rules and
 * axe's best practices). Injects axe once per document.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol rather than added as a <script>: the pages' Content
  // Security Policy (script-src 'self', no inline script) refuses an injected script tag, and the
  // tests check the pages with their real headers.
  if (!(await page.evaluate('typeof window.axe === "object"')))
    await page.evaluate((axeSource ??= readFileSync(AXE_PATH, 'utf8')));
  // Written as text: this file is not compiled with the DOM types. The page's own animations are
  // finished first so that colour contrast reads the colours at rest, not mid-transition.
  return await page.evaluate<AxeViolation[]>(`(async () => {
    await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)));
    const r = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target.join(' '), summary: n.failureSummary ?? '' })),
    }));
  })()`);
}

/** The violations as lines a failing assertion can show: rule, impact, help, and the first elements. */
export function describeViolations(state: string, vs: readonly AxeViolation[]): string {
  const lines = vs.flatMap((v) => [
    `${state}: ${v.id} (${v.impact ?? 'n/a'}): ${v.help}`,
    ...v.nodes.map((n) => `    ${n.target} — ${n.summary.replace(/\s+/g, ' ')}`),
  ]);
  return lines.join('\n');
}

/**
 * Assert that axe-core finds nothing on `page` in the state named `state` (the name appears in the
 * failure, with each rule and element).
 * @example
 * await expectNoAxeViolations(page, 'review card, confirm dialog open');
 */
export async function expectNoAxeViolations(page: Page, state: string): Promise<void> {
  const vs = await axeViolations(page);
  if (vs.length) throw new Error(`axe-core found ${vs.length} violation(s)\n${describeViolations(state, vs)}`);
}
