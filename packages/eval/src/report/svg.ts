/**
 * Charts as plain SVG strings (no dependency): a labelled scatter plot and a grouped bar chart.
 * Every text is XML-escaped, so the output is well-formed for any label.
 */

/** Escape text for XML content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Size and margins of a chart, in SVG user units. */
export interface ChartFrame {
  width: number;
  height: number;
  margin: { top: number; right: number; bottom: number; left: number };
}

/** Defaults of {@link ChartFrame}. */
export const CHART_DEFAULTS: ChartFrame = {
  width: 720,
  height: 420,
  margin: { top: 48, right: 160, bottom: 56, left: 72 },
};

/** A palette that stays readable for colour-blind readers (Okabe-Ito). */
export const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#D55E00',
  '#CC79A7',
  '#56B4E9',
  '#F0E442',
  '#000000',
];

const fmt = (x: number): string => {
  if (x === 0) return '0';
  const abs = Math.abs(x);
  if (abs >= 1e6) return `${(x / 1e6).toFixed(abs >= 1e7 ? 0 : 1)}M`;
  if (abs >= 1e3) return `${(x / 1e3).toFixed(abs >= 1e4 ? 0 : 1)}k`;
  if (abs >= 10) return x.toFixed(0);
  if (abs >= 1) return x.toFixed(1).replace(/\.0$/, '');
  return String(Number(x.toPrecision(2)));
};

/** About `count` round tick values covering [min, max] (1, 2, 5 × 10^k steps). */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (min === max) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    return niceTicks(min - pad, max + pad, count);
  }
  const raw = (max - min) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const start = Math.floor(min / step) * step;
  const ticks: number[] = [];
  for (let t = start; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  if ((ticks.at(-1) as number) < max) ticks.push(Number(((ticks.at(-1) as number) + step).toPrecision(12)));
  return ticks;
}

function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) ticks.push(10 ** e);
  return ticks;
}

/** One labelled point of a scatter plot. */
export interface ScatterPoint {
  label: string;
  x: number;
  y: number;
}

/** What a scatter plot shows. */
export interface ScatterSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  points: ScatterPoint[];
  /** Log-scale x axis (for costs that span orders of magnitude); zero is drawn one decade below the rest. @default false */
  logX?: boolean;
  /** Fix the y range (e.g. [0, 1] for rates). */
  yDomain?: [number, number];
  frame?: Partial<ChartFrame>;
}

function frameOf(partial: Partial<ChartFrame> | undefined): ChartFrame {
  return { ...CHART_DEFAULTS, ...partial, margin: { ...CHART_DEFAULTS.margin, ...partial?.margin } };
}

function header(frame: ChartFrame, title: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${frame.width}" height="${frame.height}" viewBox="0 0 ${frame.width} ${frame.height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${frame.width}" height="${frame.height}" fill="#ffffff"/>`,
    `<text x="${frame.width / 2}" y="24" text-anchor="middle" font-size="15" font-weight="600">${escapeXml(title)}</text>`,
  ];
}

/**
 * A scatter plot with one labelled, coloured point per entry and a legend: e.g. quality against
 * indexing cost. Points with a non-finite coordinate (or x < 0 on a log axis) are left out and
 * listed under the plot.
 */
export function scatterChart(spec: ScatterSpec): string {
  const frame = frameOf(spec.frame);
  const { margin } = frame;
  const plotW = frame.width - margin.left - margin.right;
  const plotH = frame.height - margin.top - margin.bottom;
  const usable = spec.points.filter(
    (p) => Number.isFinite(p.x) && Number.isFinite(p.y) && (!spec.logX || p.x >= 0),
  );
  const left = spec.points.filter((p) => !usable.includes(p));
  const xs = usable.map((p) => p.x);
  const ys = usable.map((p) => p.y);
  const out = header(frame, spec.title);
  let xTicks: number[];
  let xScale: (x: number) => number;
  let xTickLabel = fmt;
  const positive = xs.filter((x) => x > 0);
  if (spec.logX && positive.length > 0) {
    xTicks = logTicks(Math.min(...positive), Math.max(...positive));
    // Zero has no place on a log axis: it is drawn one decade below the smallest tick, labelled 0.
    const zeroAt = xs.some((x) => x === 0) ? (xTicks[0] as number) / 10 : undefined;
    if (zeroAt !== undefined) {
      xTicks.unshift(zeroAt);
      xTickLabel = (t) => (t === zeroAt ? '0' : fmt(t));
    }
    const lo = Math.log10(xTicks[0] as number);
    const hi = Math.log10(xTicks.at(-1) as number);
    xScale = (x) =>
      margin.left + ((Math.log10(x === 0 ? (zeroAt as number) : x) - lo) / Math.max(1e-12, hi - lo)) * plotW;
  } else {
    xTicks = usable.length > 0 ? niceTicks(Math.min(0, ...xs), Math.max(...xs)) : [0, 1];
    const lo = xTicks[0] as number;
    const hi = xTicks.at(-1) as number;
    xScale = (x) => margin.left + ((x - lo) / Math.max(1e-12, hi - lo)) * plotW;
  }
  const yTicks = spec.yDomain
    ? niceTicks(spec.yDomain[0], spec.yDomain[1])
    : usable.length > 0
      ? niceTicks(Math.min(0, ...ys), Math.max(...ys))
      : [0, 1];
  const yLo = yTicks[0] as number;
  const yHi = yTicks.at(-1) as number;
  const yScale = (y: number) => margin.top + plotH - ((y - yLo) / Math.max(1e-12, yHi - yLo)) * plotH;
  out.push('<g stroke="#e5e5e5">');
  for (const t of yTicks)
    out.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${yScale(t).toFixed(1)}" y2="${yScale(t).toFixed(1)}"/>`,
    );
  for (const t of xTicks)
    out.push(
      `<line x1="${xScale(t).toFixed(1)}" x2="${xScale(t).toFixed(1)}" y1="${margin.top}" y2="${margin.top + plotH}"/>`,
    );
  out.push('</g>');
  out.push(`<g fill="#444">`);
  for (const t of yTicks)
    out.push(
      `<text x="${margin.left - 8}" y="${(yScale(t) + 4).toFixed(1)}" text-anchor="end">${escapeXml(fmt(t))}</text>`,
    );
  for (const t of xTicks)
    out.push(
      `<text x="${xScale(t).toFixed(1)}" y="${margin.top + plotH + 18}" text-anchor="middle">${escapeXml(xTickLabel(t))}</text>`,
    );
  out.push('</g>');
  out.push(
    `<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
    `<text x="${margin.left + plotW / 2}" y="${frame.height - 14}" text-anchor="middle">${escapeXml(spec.xLabel)}</text>`,
    `<text transform="translate(18 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(spec.yLabel)}</text>`,
  );
  usable.forEach((p, i) => {
    const color = PALETTE[i % PALETTE.length] as string;
    const cx = xScale(p.x).toFixed(1);
    const cy = yScale(p.y).toFixed(1);
    out.push(
      `<circle cx="${cx}" cy="${cy}" r="6" fill="${color}" stroke="#222" stroke-width="0.8"><title>${escapeXml(`${p.label}: ${fmt(p.x)}, ${fmt(p.y)}`)}</title></circle>`,
      // Labels of points in the right quarter go to their left, clear of the legend.
      Number(cx) > margin.left + plotW * 0.75
        ? `<text x="${(Number(cx) - 9).toFixed(1)}" y="${(Number(cy) - 8).toFixed(1)}" fill="#222" text-anchor="end">${escapeXml(p.label)}</text>`
        : `<text x="${(Number(cx) + 9).toFixed(1)}" y="${(Number(cy) - 8).toFixed(1)}" fill="#222">${escapeXml(p.label)}</text>`,
    );
  });
  const legendX = margin.left + plotW + 16;
  usable.forEach((p, i) => {
    const y = margin.top + 10 + i * 18;
    out.push(
      `<circle cx="${legendX}" cy="${y}" r="5" fill="${PALETTE[i % PALETTE.length]}"/>`,
      `<text x="${legendX + 10}" y="${y + 4}">${escapeXml(p.label)}</text>`,
    );
  });
  if (left.length > 0)
    out.push(
      `<text x="${margin.left}" y="${frame.height - 2}" font-size="10" fill="#a00">${escapeXml(`not plotted (no value): ${left.map((p) => p.label).join(', ')}`)}</text>`,
    );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** What a grouped bar chart shows: one group per category, one bar per series. */
export interface BarSpec {
  title: string;
  yLabel: string;
  categories: string[];
  series: { name: string; values: number[] }[];
  frame?: Partial<ChartFrame>;
}

/** A grouped bar chart (e.g. p50 and p95 latency per method), with values written above the bars. */
export function barChart(spec: BarSpec): string {
  const frame = frameOf(spec.frame);
  const { margin } = frame;
  const plotW = frame.width - margin.left - margin.right;
  const plotH = frame.height - margin.top - margin.bottom;
  const values = spec.series.flatMap((s) => s.values).filter(Number.isFinite);
  const yTicks = niceTicks(0, values.length > 0 ? Math.max(...values) : 1);
  const yHi = yTicks.at(-1) as number;
  const yScale = (y: number) => margin.top + plotH - (y / Math.max(1e-12, yHi)) * plotH;
  const out = header(frame, spec.title);
  out.push('<g stroke="#e5e5e5">');
  for (const t of yTicks)
    out.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${yScale(t).toFixed(1)}" y2="${yScale(t).toFixed(1)}"/>`,
    );
  out.push('</g><g fill="#444">');
  for (const t of yTicks)
    out.push(
      `<text x="${margin.left - 8}" y="${(yScale(t) + 4).toFixed(1)}" text-anchor="end">${escapeXml(fmt(t))}</text>`,
    );
  out.push('</g>');
  const groupW = plotW / Math.max(1, spec.categories.length);
  const barW = (groupW * 0.7) / Math.max(1, spec.series.length);
  spec.categories.forEach((category, c) => {
    const gx = margin.left + c * groupW + groupW * 0.15;
    spec.series.forEach((series, s) => {
      const v = series.values[c] as number;
      if (!Number.isFinite(v)) return;
      const x = gx + s * barW;
      const y = yScale(v);
      out.push(
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(margin.top + plotH - y).toFixed(1)}" fill="${PALETTE[s % PALETTE.length]}"><title>${escapeXml(`${category} ${series.name}: ${fmt(v)}`)}</title></rect>`,
        `<text x="${(x + barW / 2 - 1).toFixed(1)}" y="${(y - 4).toFixed(1)}" text-anchor="middle" font-size="10">${escapeXml(fmt(v))}</text>`,
      );
    });
    out.push(
      `<text x="${(margin.left + (c + 0.5) * groupW).toFixed(1)}" y="${margin.top + plotH + 18}" text-anchor="middle">${escapeXml(category)}</text>`,
    );
  });
  out.push(
    `<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
    `<text transform="translate(18 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(spec.yLabel)}</text>`,
  );
  const legendX = margin.left + plotW + 16;
  spec.series.forEach((series, s) => {
    const y = margin.top + 10 + s * 18;
    out.push(
      `<rect x="${legendX - 5}" y="${y - 5}" width="10" height="10" fill="${PALETTE[s % PALETTE.length]}"/>`,
      `<text x="${legendX + 10}" y="${y + 4}">${escapeXml(series.name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
