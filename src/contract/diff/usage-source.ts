import fs from 'node:fs';
import { ADMIN_API_BASE_PATH } from '../../admin/contract.js';
import type { UsageExport } from '../../usage/export-format.js';
import { checkUsageWindow, parseUsageExport } from './usage.js';
import { UsageError } from './sources.js';

/**
 * Where `contract:diff --usage` reads a usage export from: a file written by `npx schoolgate usage export`, or a running
 * instance's admin API (`GET {origin}/api/admin/v1/usage/export?days=N`) with an operator token taken from
 * SCHOOLGATE_OPERATOR_TOKEN. The token never goes on the command line, where `ps` and shell histories would show it.
 */

/** The same variable `schoolgate contract-test` reads its operator token from. */
export const ADMIN_TOKEN_VARIABLE = 'SCHOOLGATE_OPERATOR_TOKEN';
/** Far above any real export; a bigger answer is a mistake (a wrong URL serving a file), not usage. */
const MAX_EXPORT_BYTES = 64 * 1024 * 1024;
/** Generous: a slow instance under load is not an error; a black hole still ends. */
const FETCH_TIMEOUT_MS = 120_000;
const EXPORT_PATH = '/usage/export';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** `https://school.example` (the site) or the full `…/api/admin/v1/usage/export` URL, asking for `days` days. */
export function exportUrl(source: string, days: number): URL {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new UsageError(`--usage ${source} is not a URL`);
  }
  if (url.username !== '' || url.password !== '') throw new UsageError(`--usage ${url.origin}: no credentials in the URL; the operator token goes in ${ADMIN_TOKEN_VARIABLE}`);
  // A bearer token in clear text is anyone's on the way (RFC 6750 §5.3): plain HTTP only to this machine.
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) throw new UsageError(`--usage ${url.origin}: the operator token is only sent over HTTPS (or to this machine over HTTP)`);
  if (url.pathname === '/' || url.pathname === '') url.pathname = `${ADMIN_API_BASE_PATH}${EXPORT_PATH}`;
  else if (!url.pathname.endsWith(EXPORT_PATH)) throw new UsageError(`--usage ${source}: give the site's origin (${url.origin}) or the admin API's ${url.origin}${ADMIN_API_BASE_PATH}${EXPORT_PATH}`);
  url.searchParams.set('days', String(days));
  return url;
}

function problemDetail(text: string): string {
  try {
    const problem = JSON.parse(text) as { detail?: unknown; title?: unknown };
    if (typeof problem.detail === 'string') return problem.detail;
    if (typeof problem.title === 'string') return problem.title;
  } catch {
    // not a problem document
  }
  return text.slice(0, 200).trim();
}

async function fetchExport(url: URL, environment: NodeJS.ProcessEnv): Promise<string> {
  const token = environment[ADMIN_TOKEN_VARIABLE];
  if (token === undefined || token.trim() === '') {
    throw new UsageError(`reading usage from ${url.origin} needs an operator token with the scope school:read in ${ADMIN_TOKEN_VARIABLE} (a service client's token, docs/admin-api.md)`);
  }
  let response: Response;
  try {
    // No redirects: following one would hand the operator token to wherever it points.
    response = await fetch(url, { headers: { accept: 'application/json', authorization: `Bearer ${token.trim()}` }, redirect: 'manual', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new UsageError(`could not reach ${url.origin} for its usage: ${cause}`);
  }
  const text = await response.text();
  if (response.status === 401 || response.status === 403) {
    throw new UsageError(`${url.href} refused the operator token in ${ADMIN_TOKEN_VARIABLE} (${response.status}): ${problemDetail(text)}; it needs the scope school:read on ${url.origin}`);
  }
  if (response.status >= 300 && response.status < 400) throw new UsageError(`${url.href} redirects to ${response.headers.get('location') ?? '(nowhere)'}; give that URL to --usage`);
  if (response.status !== 200) throw new UsageError(`${url.href} answered ${response.status}: ${problemDetail(text)}`);
  if (Buffer.byteLength(text) > MAX_EXPORT_BYTES) throw new UsageError(`${url.href} answered more than ${MAX_EXPORT_BYTES / 1024 / 1024} MiB: not a usage export`);
  return text;
}

function readExportFile(file: string): string {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (error) {
    throw new UsageError(`--usage ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (size > MAX_EXPORT_BYTES) throw new UsageError(`--usage ${file} is larger than ${MAX_EXPORT_BYTES / 1024 / 1024} MiB: not a usage export`);
  return fs.readFileSync(file, 'utf8');
}

/**
 * The usage export `--usage` names, checked: its format, that it is the usage of `site` (`--site`, or for a URL the
 * URL's origin) and that it covers at least `days` days. Every problem is a UsageError (exit 2), read before the diff.
 */
export async function readUsage(source: string, options: { days: number; site?: string; environment?: NodeJS.ProcessEnv }): Promise<UsageExport> {
  if (options.site !== undefined && !/^https?:\/\/[^/]+\/?$/i.test(options.site)) throw new UsageError(`--site ${options.site} is not a site origin (https://school.example)`);
  if (!isUrl(source)) {
    const usage = parseUsageExport(readExportFile(source), source);
    checkUsageWindow(usage, source, options.days, options.site);
    return usage;
  }
  const url = exportUrl(source, options.days);
  const label = `the usage from ${url.origin}`;
  const usage = parseUsageExport(await fetchExport(url, options.environment ?? process.env), label);
  checkUsageWindow(usage, label, options.days, options.site ?? url.origin);
  return usage;
}
