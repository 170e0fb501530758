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
const LABEL_W = 190;
const VALUE_W = 70;
const WIDTH = 640;

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

/** A row label that fits the label column; the whole name is in its tooltip and the data table. */
function rowLabel(label: string, x: number, y: number): SVGTextElement {
  const fits = label.length <= 24 ? label : `${label.slice(0, 23)}…`;
  return s(
    'text',
    { x, y, class: 'axis-label', 'text-anchor': 'end', 'dominant-baseline': 'middle' },
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
  const plot = WIDTH - LABEL_W - VALUE_W;
  const height = Math.max(1, rows.length) * ROW + 8;
  const bars = rows.map((r, i) => {
    const y = i * ROW + 4;
    let x = LABEL_W;
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
      rowLabel(r.label, LABEL_W - 8, y + (ROW - 10) / 2),
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
  const rowH = n * (barH + 4) + 10;
  const plot = WIDTH - LABEL_W - VALUE_W;
  const height = Math.max(1, rows.length) * rowH + 8;
  const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v * 100)}%`);
  const groups = rows.map((r, i) => {
    const y0 = i * rowH + 4;
    return s(
      'g',
      null,
      rowLabel(r.label, LABEL_W - 8, y0 + (rowH - 10) / 2),
      ...r.rates.flatMap((rate, j) => {
        const y = y0 + j * (barH + 4);
        const w = (rate.value ?? 0) * plot;
        return [
          s('rect', { x: LABEL_W, y, width: plot, height: barH, class: 'track', rx: 2 }),
          s(
            'rect',
            { x: LABEL_W, y, width: Math.max(w, rate.value ? 1 : 0).toFixed(1), height: barH, class: rate.cls, rx: 2 },
            s('title', null, `${r.label}: ${rate.name} ${pct(rate.value)}`),
          ),
          s(
            'text',
            { x: LABEL_W + plot + 6, y: y + barH / 2, class: 'value-label', 'dominant-baseline': 'middle' },
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
