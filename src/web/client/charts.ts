import { h, s } from './dom.ts';

/**
 * Small SVG charts built with DOM calls (no library, nothing parsed). Each
 * is an image with a title and description for screen readers, and comes
 * with its numbers in a table under "Show the data".
 */

export interface Segment {
  name: string;
  value: number;
  /** CSS class giving the colour (`seg-approved`…). */
  cls: string;
}

export interface BarRow {
  label: string;
  segments: Segment[];
}

const ROW = 30;
const VALUE_W = 70;
/** Height of a row's label line when labels sit above their bars (narrow charts). */
const LABEL_LINE = 18;

/**
 * The charts' drawing width in SVG units. The page sets it to the width a chart is drawn at
 * ({@link setChartWidth}), so one unit is about one CSS pixel and a 12-unit label reads as 12 px
 * on a phone as on a desktop, rather than shrinking with a fixed viewBox.
 */
let WIDTH = 640;
/** Below this width a row's label goes on its own line above the bars: a label column would leave no room. */
const NARROW = 480;

/** Width of the label column (0 when labels sit above their bars). */
const labelW = () => (WIDTH < NARROW ? 0 : 190);
/** Extra height per row for a label above its bars. */
const labelLine = () => (WIDTH < NARROW ? LABEL_LINE : 0);

/**
 * Draw the next charts `px` units wide (the CSS width they will take). Answers whether that changed
 * the width, so the page knows to draw them again.
 */
export function setChartWidth(px: number): boolean {
  const w = Math.round(Math.min(900, Math.max(260, px)));
  if (Math.abs(w - WIDTH) < 4) return false;
  WIDTH = w;
  return true;
}

let uid = 0;

function frame(title: string, desc: string, height: number, ...children: SVGElement[]): SVGSVGElement {
  const id = `chart-${++uid}`;
  return s(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${height}`,
      class: 'chart',
      role: 'img',
      'aria-labelledby': `${id}-t ${id}-d`,
      preserveAspectRatio: 'xMinYMin meet',
    },
    s('title', { id: `${id}-t` }, title),
    s('desc', { id: `${id}-d` }, desc),
    ...children,
  );
}

function dataTable(caption: string, head: string[], rows: Array<Array<string | number>>): HTMLElement {
  return h(
    'details',
    { class: 'chart-data' },
    h('summary', null, 'Show the data'),
    h(
      'table',
      null,
      h('caption', { class: 'sr-only' }, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          head.map((x) => h('th', { scope: 'col' }, x)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((r) =>
          h(
            'tr',
            null,
            r.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, String(c)) : h('td', null, String(c)))),
          ),
        ),
      ),
    ),
  );
}

function legend(segments: readonly { name: string; cls: string }[]): HTMLElement {
  return h(
    'ul',
    { class: 'legend', 'aria-hidden': 'true' },
    segments.map((x) => h('li', null, h('span', { class: `swatch ${x.cls}` }), x.name)),
  );
}

/**
 * A row's label: right-aligned in the label column, or on its own line above the bars of a narrow
 * chart (`y` is then the row's top). Cut to fit; the whole name is in its tooltip and the data table.
 */
function rowLabel(label: string, y: number): SVGTextElement {
  const above = labelW() === 0;
  // About 7.3 units per character of the 12-unit monospace label.
  const room = above ? Math.floor((WIDTH - VALUE_W) / 7.3) : 24;
  const fits = label.length <= room ? label : `${label.slice(0, room - 1)}…`;
  return s(
    'text',
    above
      ? { x: 0, y: y + LABEL_LINE / 2, class: 'axis-label', 'text-anchor': 'start', 'dominant-baseline': 'middle' }
      : { x: labelW() - 8, y, class: 'axis-label', 'text-anchor': 'end', 'dominant-baseline': 'middle' },
    s('title', null, label),
    fits,
  );
}

/** Horizontal bars, stacked by segment; `format` writes each row's total. */
export function stackedBars(
  title: string,
  rows: readonly BarRow[],
  format: (total: number) => string = String,
): HTMLElement {
  const max = Math.max(1, ...rows.map((r) => r.segments.reduce((a, x) => a + x.value, 0)));
  const plot = WIDTH - labelW() - VALUE_W;
  const rowH = ROW + labelLine();
  const height = Math.max(1, rows.length) * rowH + 8;
  const bars = rows.map((r, i) => {
    const top = i * rowH + 4;
    const y = top + labelLine();
    let x = labelW();
    const total = r.segments.reduce((a, seg) => a + seg.value, 0);
    const rects = r.segments
      .filter((seg) => seg.value > 0)
      .map((seg) => {
        const w = (seg.value / max) * plot;
        const rect = s(
          'rect',
          { x: x.toFixed(1), y, width: Math.max(w, 1).toFixed(1), height: ROW - 10, class: seg.cls, rx: 2 },
          s('title', null, `${r.label}: ${seg.name} ${seg.value}`),
        );
        x += w;
        return rect;
      });
    return s(
      'g',
      null,
      rowLabel(r.label, labelW() ? y + (ROW - 10) / 2 : top),
      ...rects,
      s(
        'text',
        { x: x + 6, y: y + (ROW - 10) / 2, class: 'value-label', 'dominant-baseline': 'middle' },
        format(total),
      ),
    );
  });
  const names = [...new Map(rows.flatMap((r) => r.segments).map((x) => [x.name, x])).values()];
  const desc = rows.map((r) => `${r.label}: ${r.segments.map((x) => `${x.name} ${x.value}`).join(', ')}`).join('; ');
  return h(
    'figure',
    { class: 'chart-box' },
    h('figcaption', null, title),
    rows.length ? frame(title, desc, height, ...bars) : h('p', { class: 'muted' }, 'No data in this window.'),
    names.length > 1 ? legend(names) : null,
    dataTable(
      title,
      ['', ...names.map((x) => x.name)],
      rows.map((r) => [r.label, ...names.map((n) => r.segments.find((x) => x.name === n.name)?.value ?? 0)]),
    ),
  );
}

/** Side-by-side bars per row for rates in [0, 1] (null = no decisions yet). */
export function rateBars(
  title: string,
  rows: ReadonlyArray<{ label: string; rates: Array<{ name: string; value: number | null; cls: string }> }>,
): HTMLElement {
  const n = Math.max(1, rows[0]?.rates.length ?? 1);
  const barH = 12;
  const barsH = n * (barH + 4) + 10;
  const rowH = barsH + labelLine();
  const x0 = labelW();
  const plot = WIDTH - x0 - VALUE_W;
  const height = Math.max(1, rows.length) * rowH + 8;
  const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v * 100)}%`);
  const groups = rows.map((r, i) => {
    const top = i * rowH + 4;
    const y0 = top + labelLine();
    return s(
      'g',
      null,
      rowLabel(r.label, x0 ? y0 + (barsH - 10) / 2 : top),
      ...r.rates.flatMap((rate, j) => {
        const y = y0 + j * (barH + 4);
        const w = (rate.value ?? 0) * plot;
        return [
          s('rect', { x: x0, y, width: plot, height: barH, class: 'track', rx: 2 }),
          s(
            'rect',
            { x: x0, y, width: Math.max(w, rate.value ? 1 : 0).toFixed(1), height: barH, class: rate.cls, rx: 2 },
            s('title', null, `${r.label}: ${rate.name} ${pct(rate.value)}`),
          ),
          s(
            'text',
            { x: x0 + plot + 6, y: y + barH / 2, class: 'value-label', 'dominant-baseline': 'middle' },
            pct(rate.value),
          ),
        ];
      }),
    );
  });
  const names = rows[0]?.rates.map((x) => ({ name: x.name, cls: x.cls })) ?? [];
  const desc = rows.map((r) => `${r.label}: ${r.rates.map((x) => `${x.name} ${pct(x.value)}`).join(', ')}`).join('; ');
  return h(
    'figure',
    { class: 'chart-box' },
    h('figcaption', null, title),
    rows.length ? frame(title, desc, height, ...groups) : h('p', { class: 'muted' }, 'No data in this window.'),
    legend(names),
    dataTable(
      title,
      ['', ...names.map((x) => x.name)],
      rows.map((r) => [r.label, ...r.rates.map((x) => pct(x.value))]),
    ),
  );
}

/** A line (with area) over time, e.g. queue depth. */
export function timeLine(
  title: string,
  points: ReadonlyArray<{ at: string; value: number }>,
  yLabel: string,
): HTMLElement {
  const H = 220;
  const left = 44;
  const right = 12;
  const top = 12;
  const bottom = 30;
  const plotW = WIDTH - left - right;
  const plotH = H - top - bottom;
  const max = Math.max(1, ...points.map((p) => p.value));
  const t0 = Date.parse(points[0]?.at ?? new Date().toISOString());
  const t1 = Date.parse(points[points.length - 1]?.at ?? new Date().toISOString());
  const x = (at: string) => left + ((Date.parse(at) - t0) / Math.max(1, t1 - t0)) * plotW;
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const line = points.map((p, i) => `${i ? 'L' : 'M'}${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const area = points.length
    ? `${line} L${x(points[points.length - 1]!.at).toFixed(1)},${y(0)} L${x(points[0]!.at).toFixed(1)},${y(0)} Z`
    : '';
  const ticks = [0, Math.round(max / 2), max].filter((v, i, a) => a.indexOf(v) === i);
  const span = t1 - t0;
  const fmt = (at: string) =>
    new Date(at).toLocaleString(
      undefined,
      span > 2 * 86_400_000 ? { day: 'numeric', month: 'short' } : { hour: '2-digit', minute: '2-digit' },
    );
  const xTicks =
    points.length > 1 ? [0, Math.floor((points.length - 1) / 2), points.length - 1].map((i) => points[i]!) : [];
  const svg = frame(
    title,
    `${yLabel} from ${points[0] ? fmt(points[0].at) : ''} to ${points.at(-1) ? fmt(points.at(-1)!.at) : ''}: highest ${max}, now ${points.at(-1)?.value ?? 0}.`,
    H,
    ...ticks.map((v) =>
      s(
        'g',
        null,
        s('line', { x1: left, x2: WIDTH - right, y1: y(v), y2: y(v), class: 'grid' }),
        s(
          'text',
          { x: left - 6, y: y(v), class: 'axis-label', 'text-anchor': 'end', 'dominant-baseline': 'middle' },
          String(v),
        ),
      ),
    ),
    ...xTicks.map((p, i) =>
      s(
        'text',
        {
          x: x(p.at),
          y: H - 8,
          class: 'axis-label',
          'text-anchor': i === 0 ? 'start' : i === xTicks.length - 1 ? 'end' : 'middle',
        },
        fmt(p.at),
      ),
    ),
    s('path', { d: area, class: 'area' }),
    s('path', { d: line, class: 'line' }),
  );
  return h(
    'figure',
    { class: 'chart-box' },
    h('figcaption', null, title),
    svg,
    dataTable(
      title,
      ['time', yLabel],
      points.map((p) => [new Date(p.at).toLocaleString(), p.value]),
    ),
  );
}
