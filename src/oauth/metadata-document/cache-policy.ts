import type { IncomingHttpHeaders } from 'node:http';

/** Bounds on how long a fetched document is trusted: at least a minute (load on the document host), at most a day. */
export const MIN_FRESHNESS_SECONDS = 60;
export const MAX_FRESHNESS_SECONDS = 24 * 60 * 60;
/** Without caching headers a document is fresh for five minutes. */
export const DEFAULT_FRESHNESS_SECONDS = 5 * 60;

function directives(header: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...value] = part.trim().split('=');
    if (name) map.set(name.toLowerCase(), value.join('=').replace(/^"(.*)"$/, '$1'));
  }
  return map;
}

function seconds(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * RFC 9111 4.2.1 freshness lifetime as a shared cache computes it: s-maxage, else max-age, else Expires − Date, less
 * the Age already spent upstream (4.2.3). `no-store`, `no-cache` and `private` ask for no reuse; they get the minimum,
 * the floor that keeps every authorization request from turning into a fetch. The result is clamped to the bounds.
 */
export function freshnessLifetimeSeconds(headers: IncomingHttpHeaders): number {
  const cacheControl = directives(headers['cache-control']);
  let lifetime: number | undefined;
  if (cacheControl.has('no-store') || cacheControl.has('no-cache') || cacheControl.has('private')) lifetime = 0;
  else lifetime = seconds(cacheControl.get('s-maxage')) ?? seconds(cacheControl.get('max-age'));
  if (lifetime === undefined && headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    const date = headers.date === undefined ? Date.now() : Date.parse(headers.date);
    if (!Number.isNaN(expires) && !Number.isNaN(date)) lifetime = Math.floor((expires - date) / 1000);
  }
  lifetime = (lifetime ?? DEFAULT_FRESHNESS_SECONDS) - (seconds(headers.age) ?? 0);
  return Math.min(MAX_FRESHNESS_SECONDS, Math.max(MIN_FRESHNESS_SECONDS, lifetime));
}
