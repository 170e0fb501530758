/**
 * Measurements the layout tests take in the page: where elements sit against the viewport, the
 * contrast of the focus indicator, the drawn size of chart labels. Each runs as page script (these
 * files are not compiled with the DOM types). Not part of the API.
 */
import type { Page } from 'playwright-core';

/** An element's box in viewport coordinates (null when it is not rendered). */
export interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** The box of the first element matching `selector`, as the viewport sees it now. */
export async function boxOf(page: Page, selector: string): Promise<Box | null> {
  return await page.evaluate<Box | null>(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  })()`);
}

/** The focused element's indicator: its colour, the colour behind it, and their contrast ratio. */
export interface FocusRing {
  element: string;
  ring: string;
  behind: string;
  ratio: number;
}

/**
 * The focus indicator of the focused element and its contrast (WCAG relative luminance) against
 * what is drawn around it: the outline when it has one (drawn outside the element, over its
 * parents' background), else the ring an ancestor draws with `box-shadow` while it holds the focus
 * (a queue row). Null when nothing visible marks the focus.
 */
export async function focusRing(page: Page): Promise<FocusRing | null> {
  return await page.evaluate<FocusRing | null>(`(() => {
    const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const opaque = (c) => { const p = rgb(c); return p.length >= 3 && (p.length === 3 || p[3] > 0); };
    const backgroundOf = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const bg = getComputedStyle(e).backgroundColor;
        if (opaque(bg)) return bg;
      }
      return 'rgb(255, 255, 255)';
    };
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const name = el.id ? '#' + el.id : el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '');
    let ring, around;
    const cs = getComputedStyle(el);
    if (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) {
      ring = cs.outlineColor;
      around = el.parentElement;
    } else {
      for (let e = el.parentElement; e && !ring; e = e.parentElement) {
        const shadow = getComputedStyle(e).boxShadow;
        if (shadow && shadow !== 'none' && e.matches(':focus-within')) {
          ring = (shadow.match(/rgba?\\([^)]*\\)/) || [])[0];
          around = e.parentElement;
        }
      }
    }
    if (!ring) return { element: name, ring: 'none', behind: '', ratio: 0 };
    const behind = backgroundOf(around);
    const [a, b] = [lum(rgb(ring)), lum(rgb(behind))];
    return { element: name, ring, behind, ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
  })()`);
}

/** Press Tab `n` times and read the focus indicator after each press. */
export async function tabRings(page: Page, n: number): Promise<FocusRing[]> {
  const out: FocusRing[] = [];
  for (let i = 0; i < n; i++) {
    await page.keyboard.press('Tab');
    const r = await focusRing(page);
    if (r) out.push(r);
  }
  return out;
}

/** The smallest drawn font size (CSS px, after the SVG's scaling) of the text in the page's charts. */
export async function smallestChartText(page: Page): Promise<number> {
  return await page.evaluate<number>(`(() => {
    let min = Infinity;
    for (const t of document.querySelectorAll('svg.chart text')) {
      const m = t.getScreenCTM();
      if (!m) continue;
      min = Math.min(min, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b));
    }
    return min;
  })()`);
}

/**
 * Wait until `expression` is true in the page, reading it again after each animation frame. (The
 * pages' Content Security Policy forbids eval, which `page.waitForFunction` needs.)
 */
export async function waitUntil(page: Page, expression: string): Promise<void> {
  while (!(await page.evaluate(expression))) await page.evaluate('new Promise((r) => requestAnimationFrame(r))');
}
