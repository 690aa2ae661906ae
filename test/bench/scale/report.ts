/**
 * What `npm run bench:scale` writes: scale.json (every series measured, with when and under what load), scale.md (a
 * table per series with its verdict) and scale-<id>.svg (one plot per series id, both stores). A run of some
 * scenarios or one store (SCALE_ONLY, BENCH_DATABASE) replaces only the series it measured and keeps the others.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactNumber, plotSvg, STORE_NAMES } from './plot.js';
import type { ScaleSeries } from './types.js';

export interface MeasuredSeries extends ScaleSeries {
  /** ISO time the scenario finished. */
  measuredAt: string;
  /** os.loadavg() when it finished (1, 5, 15 minutes). */
  loadAverage: number[];
  cores: number;
  node: string;
  /** Seconds the scenario took on this store (every series of it). */
  scenarioSeconds: number;
  /** MySQL/MariaDB: the server's buffer pool during the run, in MB (mysql-server.ts). */
  bufferPoolMb?: number;
}

interface StoredFigures {
  series: MeasuredSeries[];
}

export function stamp(series: ScaleSeries, scenarioSeconds: number, bufferPoolMb?: number): MeasuredSeries {
  return {
    ...series,
    measuredAt: new Date().toISOString(),
    loadAverage: os.loadavg().map((value) => Number(value.toFixed(2))),
    cores: os.cpus().length,
    node: process.version,
    scenarioSeconds: Math.round(scenarioSeconds),
    ...(bufferPoolMb === undefined ? {} : { bufferPoolMb }),
  };
}

function readStored(file: string): MeasuredSeries[] {
  if (!fs.existsSync(file)) return [];
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as StoredFigures).series;
}

/** The stored series with this run's replacing those of the same id and store, in first-measured order. */
export function merge(stored: MeasuredSeries[], fresh: MeasuredSeries[]): MeasuredSeries[] {
  const key = (series: ScaleSeries) => `${series.id}\u0000${series.store}`;
  const freshKeys = new Map(fresh.map((series) => [key(series), series]));
  const merged = stored.map((series) => freshKeys.get(key(series)) ?? series);
  const storedKeys = new Set(stored.map(key));
  return [...merged, ...fresh.filter((series) => !storedKeys.has(key(series)))];
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function scaleMarkdown(all: MeasuredSeries[]): string {
  const ids = [...new Set(all.map((series) => series.id))];
  const lines = [
    '# bench:scale figures',
    '',
    'Written by `npm run bench:scale` (test/bench/scale/run.ts); what each curve means is in [performance.md](../performance.md).',
    'Each store\'s table says when it was measured, on how many cores and under what load average (1, 5, 15 min): the',
    'machine may be shared, so compare the shape of a curve rather than single figures across runs.',
    '',
  ];
  for (const id of ids) {
    const perStore = all.filter((series) => series.id === id).sort((a, b) => a.store.localeCompare(b.store));
    const first = perStore[0];
    if (!first) continue;
    lines.push(`## ${first.title}`, '', `![${first.title}](scale-${id}.svg)`, '');
    for (const series of perStore) {
      lines.push(
        `**${STORE_NAMES[series.store]}**: ${series.verdict ?? 'no verdict'}`,
        '',
        `<sub>measured ${series.measuredAt.slice(0, 16).replace('T', ' ')} UTC, ${series.cores} cores, load average ${series.loadAverage.join(' ')}, Node ${series.node}, scenario ${series.scenarioSeconds} s${series.bufferPoolMb === undefined ? '' : `, buffer pool ${series.bufferPoolMb} MB`}</sub>`,
        '',
        `| ${cell(series.xLabel)} | ${cell(series.yLabel)} | p99 ms | note |`,
        '| ---: | ---: | ---: | --- |',
        ...series.points.map((point) => `| ${compactNumber(point.x)} | ${compactNumber(point.value)} | ${point.p99Ms ?? ''} | ${cell(point.note ?? '')} |`),
        '',
      );
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Merges `fresh` into `directory`/scale.json and rewrites scale.md and every plot. */
export function writeScaleReport(directory: string, fresh: MeasuredSeries[]): MeasuredSeries[] {
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, 'scale.json');
  const all = merge(readStored(file), fresh);
  fs.writeFileSync(file, `${JSON.stringify({ series: all } satisfies StoredFigures, null, 2)}\n`);
  fs.writeFileSync(path.join(directory, 'scale.md'), scaleMarkdown(all));
  for (const id of new Set(all.map((series) => series.id))) {
    fs.writeFileSync(path.join(directory, `scale-${id}.svg`), plotSvg(all.filter((series) => series.id === id).sort((a, b) => a.store.localeCompare(b.store))));
  }
  return all;
}
