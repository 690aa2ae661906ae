/**
 * One SVG line plot per series id, both stores on it: hand-written (no plotting package), so the figures in
 * docs/performance/ render on any Markdown viewer and diff as text.
 */
import type { ScaleSeries } from './types.js';

const WIDTH = 680;
const HEIGHT = 380;
const MARGIN = { left: 72, right: 24, top: 44, bottom: 56 };
const COLOURS: Record<ScaleSeries['store'], string> = { mysql: '#1f6fb2', sqlite: '#d9730d' };
export const STORE_NAMES: Record<ScaleSeries['store'], string> = { mysql: 'MySQL/MariaDB', sqlite: 'SQLite' };

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** 10000 → "10k", 2500000 → "2.5M". */
export function compactNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1_000_000) return `${Number((value / 1_000_000).toFixed(1))}M`;
  if (abs >= 10_000) return `${Number((value / 1_000).toFixed(1))}k`;
  return String(Number(value.toFixed(2)));
}

/** Round tick values from 0 (or `low`) past `high`: steps of 1, 2 or 5 × 10ⁿ, about five of them. */
export function niceTicks(low: number, high: number, count = 5): number[] {
  const span = Math.max(high - low, 1e-9);
  const rough = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => span / candidate <= count) ?? 10 * magnitude);
  const ticks: number[] = [];
  for (let tick = Math.floor(low / step) * step; tick <= high + step * 1e-9; tick += step) ticks.push(Number(tick.toPrecision(12)));
  if ((ticks.at(-1) ?? 0) < high) ticks.push(Number(((ticks.at(-1) ?? 0) + step).toPrecision(12)));
  return ticks;
}

/** Ticks on a log axis: the powers of ten in range, or the measured x values when the range is under two decades. */
function logTicks(xs: number[]): number[] {
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  const powers: number[] = [];
  for (let power = 10 ** Math.floor(Math.log10(min)); power <= max * 1.0001; power *= 10) if (power >= min / 1.0001) powers.push(power);
  return powers.length >= 3 ? powers : [...new Set(xs)].sort((a, b) => a - b);
}

/** The plot of every series with this id (one line per store). */
export function plotSvg(series: ScaleSeries[]): string {
  const first = series[0];
  if (!first) throw new Error('nothing to plot');
  const points = series.flatMap((line) => line.points);
  const xs = points.map((point) => point.x);
  const logX = first.logX === true && xs.every((x) => x > 0);
  const xTicks = logX ? logTicks(xs) : niceTicks(Math.min(0, ...xs), Math.max(...xs, 1));
  const xValue = (x: number) => (logX ? Math.log10(x) : x);
  const xLow = logX ? Math.min(...xs.map(xValue), ...xTicks.map(xValue)) : (xTicks[0] ?? 0);
  const xHigh = logX ? Math.max(...xs.map(xValue), ...xTicks.map(xValue)) : (xTicks.at(-1) ?? 1);
  const padding = logX ? Math.max((xHigh - xLow) * 0.06, 0.05) : 0;
  const yTicks = niceTicks(0, Math.max(...points.map((point) => point.value), 1) * 1.05);
  const yHigh = yTicks.at(-1) ?? 1;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const px = (x: number) => MARGIN.left + ((xValue(x) - (xLow - padding)) / Math.max(xHigh - xLow + 2 * padding, 1e-9)) * plotWidth;
  const py = (y: number) => MARGIN.top + plotHeight - (y / yHigh) * plotHeight;
  const bottom = MARGIN.top + plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(first.title)}</text>`,
  ];
  for (const tick of yTicks) {
    const y = py(tick).toFixed(1);
    parts.push(`<line x1="${MARGIN.left}" y1="${y}" x2="${WIDTH - MARGIN.right}" y2="${y}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${MARGIN.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(compactNumber(tick))}</text>`);
  }
  for (const tick of xTicks) {
    const x = px(tick).toFixed(1);
    parts.push(`<line x1="${x}" y1="${bottom}" x2="${x}" y2="${bottom + 5}" stroke="#333"/>`);
    parts.push(`<text x="${x}" y="${bottom + 19}" text-anchor="middle">${escapeXml(compactNumber(tick))}</text>`);
  }
  parts.push(`<line x1="${MARGIN.left}" y1="${bottom}" x2="${WIDTH - MARGIN.right}" y2="${bottom}" stroke="#333"/>`);
  parts.push(`<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${bottom}" stroke="#333"/>`);
  parts.push(`<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 12}" text-anchor="middle">${escapeXml(first.xLabel)}${logX ? ' (log scale)' : ''}</text>`);
  parts.push(`<text transform="translate(18 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(first.yLabel)}</text>`);
  series.forEach((line, index) => {
    const colour = COLOURS[line.store];
    const sorted = [...line.points].sort((a, b) => a.x - b.x);
    if (sorted.length > 1) parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${sorted.map((point) => `${px(point.x).toFixed(1)},${py(point.value).toFixed(1)}`).join(' ')}"/>`);
    for (const point of sorted) {
      parts.push(`<circle cx="${px(point.x).toFixed(1)}" cy="${py(point.value).toFixed(1)}" r="3.5" fill="${colour}"><title>${escapeXml(`${STORE_NAMES[line.store]}: ${compactNumber(point.x)} → ${compactNumber(point.value)}${point.p99Ms === undefined ? '' : `, p99 ${point.p99Ms} ms`}`)}</title></circle>`);
    }
    const legendY = MARGIN.top + 8 + index * 18;
    const legendX = WIDTH - MARGIN.right - 130;
    parts.push(`<line x1="${legendX}" y1="${legendY}" x2="${legendX + 22}" y2="${legendY}" stroke="${colour}" stroke-width="2"/>`);
    parts.push(`<circle cx="${legendX + 11}" cy="${legendY}" r="3.5" fill="${colour}"/>`);
    parts.push(`<text x="${legendX + 28}" y="${legendY}" dominant-baseline="middle">${escapeXml(STORE_NAMES[line.store])}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
