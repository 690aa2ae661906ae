/**
 * What the sites, members and import scenarios of `npm run bench:scale` share beyond test/bench/scale/load.ts: the
 * resident memory of a process read from /proc, and requests that name their site by Host header (which fetch may not
 * set), so one product process can be asked as many sites.
 */
import fs from 'node:fs';
import http from 'node:http';

/** VmRSS (now) and VmHWM (highest so far) of a live process, in MB; NaN once it has gone. */
export function residentMemoryMb(pid: number | undefined): { rss: number; peak: number } {
  let status = '';
  try {
    status = pid === undefined ? '' : fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    status = '';
  }
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kilobytes('VmRSS') / 1024, peak: kilobytes('VmHWM') / 1024 };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request to `url` with the given headers, Host among them (fetch may not set Host): its status and body. */
export function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
