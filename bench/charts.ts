/**
 * Line charts as standalone SVG text, for docs/benchmarks.md: how a cost grows with memory size.
 * The x axis (memory size) is logarithmic; the y axis is linear from zero, or logarithmic when
 * the values span more than two orders of magnitude (a floor beside a much larger figure).
 */

/** One line of a chart. */
export interface ChartSeries {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
}

/** What to draw. */
export interface ChartSpec {
  readonly title: string;
  readonly unit: string;
  readonly xLabel: string;
  readonly series: readonly ChartSeries[];
}

const WIDTH = 680;
/** Bottom of the plot area; the axis label and the legend go below it. */
const PLOT_BOTTOM = 290;
const MARGIN = { left: 70, right: 20, top: 44 } as const;
const COLOURS = ['#d1495b', '#00798c', '#edae49', '#30638e', '#66a182', '#8d6a9f', '#2e4057', '#c3423f'];

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** 1000 → "1k", 1000000 → "1M". */
export function shortNumber(value: number): string {
  if (value >= 1e6 && value % 1e6 === 0) return `${value / 1e6}M`;
  if (value >= 1e3 && value % 1e3 === 0) return `${value / 1e3}k`;
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1).replace(/\.0$/u, '');
  if (Math.abs(value) >= 1) return value.toFixed(2).replace(/\.?0+$/u, '');
  return value.toPrecision(2);
}

/** A rounded upper bound and its tick step for a linear axis from 0. */
function niceScale(max: number): { top: number; step: number } {
  if (!(max > 0)) return { top: 1, step: 0.25 };
  const rough = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? 10 * magnitude;
  return { top: Math.ceil(max / step) * step, step };
}

interface Axis {
  readonly at: (value: number) => number;
  readonly ticks: readonly number[];
}

function logAxis(min: number, max: number, from: number, to: number): Axis {
  const low = Math.floor(Math.log10(min));
  const high = Math.max(low + 1, Math.ceil(Math.log10(max)));
  const ticks: number[] = [];
  for (let e = low; e <= high; e++) ticks.push(10 ** e);
  return { at: (v) => from + ((Math.log10(v) - low) / (high - low)) * (to - from), ticks };
}

function linearAxis(max: number, from: number, to: number): Axis {
  const { top, step } = niceScale(max);
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return { at: (v) => from + (v / top) * (to - from), ticks };
}

/** Renders `spec` as an SVG document. */
export function lineChart(spec: ChartSpec): string {
  const points = spec.series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && Number.isFinite(y));
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const plot = { left: MARGIN.left, right: WIDTH - MARGIN.right, top: MARGIN.top, bottom: PLOT_BOTTOM };
  const height = PLOT_BOTTOM + 56 + Math.ceil(spec.series.length / 2) * 17 + 6;
  const x = logAxis(Math.min(...xs, 1000), Math.max(...xs, 10_000), plot.left, plot.right);
  const positive = ys.filter((v) => v > 0);
  const useLogY =
    positive.length === ys.length &&
    positive.length > 0 &&
    Math.max(...positive) / Math.min(...positive) > 100;
  const y = useLogY
    ? logAxis(Math.min(...positive), Math.max(...positive), plot.bottom, plot.top)
    : linearAxis(Math.max(...ys, 0), plot.bottom, plot.top);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${escapeXml(spec.title)}</text>`,
  ];
  for (const tick of y.ticks) {
    const py = y.at(tick).toFixed(1);
    out.push(`<line x1="${plot.left}" x2="${plot.right}" y1="${py}" y2="${py}" stroke="#e4e4e4"/>`);
    out.push(
      `<text x="${plot.left - 8}" y="${py}" text-anchor="end" dominant-baseline="middle" fill="#444">${shortNumber(tick)}</text>`,
    );
  }
  for (const tick of x.ticks) {
    const px = x.at(tick).toFixed(1);
    out.push(`<line x1="${px}" x2="${px}" y1="${plot.top}" y2="${plot.bottom}" stroke="#f0f0f0"/>`);
    out.push(
      `<text x="${px}" y="${plot.bottom + 18}" text-anchor="middle" fill="#444">${shortNumber(tick)}</text>`,
    );
  }
  out.push(
    `<line x1="${plot.left}" x2="${plot.right}" y1="${plot.bottom}" y2="${plot.bottom}" stroke="#888"/>`,
    `<line x1="${plot.left}" x2="${plot.left}" y1="${plot.top}" y2="${plot.bottom}" stroke="#888"/>`,
    `<text x="${(plot.left + plot.right) / 2}" y="${plot.bottom + 36}" text-anchor="middle" fill="#222">${escapeXml(spec.xLabel)} (log scale)</text>`,
    `<text transform="translate(16 ${(plot.top + plot.bottom) / 2}) rotate(-90)" text-anchor="middle" fill="#222">${escapeXml(spec.unit)}${useLogY ? ' (log scale)' : ''}</text>`,
  );
  spec.series.forEach((s, index) => {
    const colour = COLOURS[index % COLOURS.length] as string;
    const drawn = s.points.filter(([px, py]) => px > 0 && Number.isFinite(py) && (!useLogY || py > 0));
    const path = drawn
      .map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${x.at(px).toFixed(1)} ${y.at(py).toFixed(1)}`)
      .join(' ');
    if (drawn.length > 1) out.push(`<path d="${path}" fill="none" stroke="${colour}" stroke-width="2.2"/>`);
    for (const [px, py] of drawn) {
      out.push(
        `<circle cx="${x.at(px).toFixed(1)}" cy="${y.at(py).toFixed(1)}" r="3.5" fill="${colour}"><title>${escapeXml(`${s.name}: ${shortNumber(py)} ${spec.unit} at ${shortNumber(px)}`)}</title></circle>`,
      );
    }
    const column = index % 2;
    const row = Math.floor(index / 2);
    const lx = plot.left + column * ((plot.right - plot.left) / 2);
    const ly = plot.bottom + 56 + row * 17;
    out.push(`<rect x="${lx}" y="${ly - 5}" width="14" height="4" fill="${colour}"/>`);
    out.push(
      `<text x="${lx + 20}" y="${ly}" dominant-baseline="middle" fill="#222">${escapeXml(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
