import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import Koa from 'koa';

export const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

export interface Row {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  note?: string;
}

/** One bounded autocannon run against loopback. */
export async function run(name: string, options: autocannon.Options): Promise<Row> {
  const result = await autocannon({ duration: DURATION_SECONDS, connections: CONNECTIONS, ...options });
  return { name, requestsPerSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

/** The yardstick: a Koa route that does nothing but answer JSON, on the same machine and Node. */
export async function bareKoa(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A Markdown table: each row next to the first (bare Koa) row. */
export function printTable(title: string, rows: Row[]): void {
  const baseline = rows[0]?.requestsPerSecond ?? 1;
  process.stdout.write(`\n${title}, ${CONNECTIONS} connections, ${DURATION_SECONDS}s each, Node ${process.version}\n\n`);
  process.stdout.write('| endpoint | req/s | % of bare Koa | p50 ms | p99 ms | non-2xx | note |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n');
  for (const row of rows) {
    process.stdout.write(`| ${row.name} | ${row.requestsPerSecond} | ${((row.requestsPerSecond / baseline) * 100).toFixed(1)}% | ${row.p50} | ${row.p99} | ${row.non2xx} | ${row.note ?? ''} |\n`);
  }
}
