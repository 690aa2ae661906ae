import { createHash } from 'node:crypto';
import { isCalendarDate } from '../../deprecations/deprecation.js';
import { USAGE_APIS, USAGE_EXPORT_FORMAT, type ClientDocuments, type ClientUse, type ElementUse, type UsageExport } from '../../usage/export-format.js';
import { VARIANT_NAMES } from '../../variant.js';
import type { ChangeClientUse, ContractChange, UsedElement } from './changes.js';
import { UsageError } from './sources.js';

/**
 * `contract:diff --usage`: reads a usage export (src/usage/export-format.ts) strictly, and judges each change by who
 * still calls what it touches (docs/contract-workflow.md, "Judging changes by their usage"):
 * - a breaking change whose elements a client used in the last `days` days fails, naming the clients, even when the
 *   element's sunset has passed (the calendar says it may go, the traffic says someone would break);
 * - a breaking change nobody used in those days is allowed, with that as its reason;
 * - deprecated and dangerous rows list who still uses the element, for information.
 * The allowlist is applied after this (report.ts), so an entry there still accepts a used change explicitly.
 */

/** The days judged when `--days` is not given. */
export const DEFAULT_USAGE_DAYS = 30;
/** The longest retention the server accepts (SCHOOLGATE_USAGE_RETENTION_DAYS). */
export const MAX_USAGE_DAYS = 3650;

const DOCUMENT_ID = /^(sha256:[0-9a-f]{64}|sha1:[0-9a-f]{40})$/;
const DAY_MS = 86_400_000;

function isTimestamp(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : typeof value;
}

/** Reads fields of one JSON object, throwing UsageErrors that name the member (`usage[2].clients[0].uses`). */
class Reader {
  constructor(
    private readonly label: string,
    private readonly where: string,
    private readonly object: Record<string, unknown>,
  ) {}

  static of(label: string, where: string, value: unknown): Reader {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${label}: ${where || 'the document'} must be a JSON object, not ${describe(value)}`);
    return new Reader(label, where, value as Record<string, unknown>);
  }

  fail(member: string, expected: string): never {
    throw new UsageError(`${this.label}: ${this.path(member)} must be ${expected}, not ${describe(this.object[member])}`);
  }

  path(member: string): string {
    return this.where === '' ? member : `${this.where}.${member}`;
  }

  string(member: string, test: (value: string) => boolean = (value) => value !== '', expected = 'a non-empty string'): string {
    const value = this.object[member];
    if (typeof value !== 'string' || !test(value)) this.fail(member, expected);
    return value;
  }

  nullableString(member: string): string | null {
    const value = this.object[member];
    if (value !== null && typeof value !== 'string') this.fail(member, 'a string or null');
    return value;
  }

  list(member: string): unknown[] {
    const value = this.object[member];
    if (!Array.isArray(value)) this.fail(member, 'a list');
    return value;
  }

  value(member: string): unknown {
    return this.object[member];
  }
}

function origin(text: string): string | null {
  try {
    const url = new URL(text);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

/** The site origin as written, or with a trailing slash or upper case (`https://School.example/`): compared by origin. */
export function sameSite(a: string, b: string): boolean {
  return (origin(a) ?? a) === (origin(b) ?? b);
}

function clientUse(label: string, where: string, value: unknown): ClientUse {
  const reader: Reader = Reader.of(label, where, value);
  const uses = reader.value('uses');
  if (!isCount(uses)) reader.fail('uses', 'a positive whole number');
  return { clientId: reader.nullableString('clientId'), clientName: reader.nullableString('clientName'), uses, lastUsedAt: reader.string('lastUsedAt', isTimestamp, 'an ISO 8601 time') };
}

function elementUse(label: string, where: string, value: unknown): ElementUse {
  const reader: Reader = Reader.of(label, where, value);
  const api = reader.string('api', (text) => (USAGE_APIS as readonly string[]).includes(text), USAGE_APIS.map((name) => `"${name}"`).join(', ')) as ElementUse['api'];
  const element = reader.string('element');
  const clients = reader.list('clients').map((client, index) => clientUse(label, `${reader.path('clients')}[${index}]`, client));
  return { api, element, clients };
}

function clientDocuments(label: string, where: string, value: unknown): ClientDocuments {
  const reader: Reader = Reader.of(label, where, value);
  const documents = reader.list('documents').map((item, index) => {
    const document: Reader = Reader.of(label, `${reader.path('documents')}[${index}]`, item);
    const id = document.string('id', (text) => DOCUMENT_ID.test(text), '`sha256:` and 64 lowercase hex digits (or `sha1:` and 40)');
    const text = document.string('document');
    const [algorithm, hash] = id.split(':') as ['sha256' | 'sha1', string];
    // The id is the hash of the text: a mismatch means the file was edited by hand or cut short.
    if (createHash(algorithm).update(text, 'utf8').digest('hex') !== hash) throw new UsageError(`${label}: ${document.path('id')} is not the ${algorithm} of its document`);
    const operationNames = document.list('operationNames');
    if (!operationNames.every((name) => typeof name === 'string')) document.fail('operationNames', 'a list of strings');
    return { id, operationNames: operationNames as string[], document: text, publishedAt: document.string('publishedAt', isTimestamp, 'an ISO 8601 time') };
  });
  return { clientId: reader.string('clientId'), clientName: reader.string('clientName', () => true, 'a string'), kind: reader.string('kind'), documents };
}

function dayNumber(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / DAY_MS;
}

/** Parses and checks a usage export; `label` names where it came from in the errors (a file name, a URL). */
export function parseUsageExport(text: string, label: string): UsageExport {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${label} is not JSON (${error instanceof Error ? error.message : String(error)}); expected a usage export (npx schoolgate usage export)`);
  }
  const reader: Reader = Reader.of(label, '', document);
  if (reader.value('format') !== USAGE_EXPORT_FORMAT) throw new UsageError(`${label} is not a usage export: \`format\` is ${describe(reader.value('format'))}, expected "${USAGE_EXPORT_FORMAT}" (npx schoolgate usage export writes one)`);
  const site = reader.string('site', (value) => origin(value) !== null, 'the site origin (https://school.example)');
  const variant = reader.string('variant', (value) => (VARIANT_NAMES as readonly string[]).includes(value), VARIANT_NAMES.map((name) => `"${name}"`).join(' or '));
  const generatedAt = reader.string('generatedAt', isTimestamp, 'an ISO 8601 time');
  const from = reader.string('from', isCalendarDate, 'a date (YYYY-MM-DD)');
  const to = reader.string('to', isCalendarDate, 'a date (YYYY-MM-DD)');
  const days = reader.value('days');
  if (typeof days !== 'number' || !Number.isSafeInteger(days) || days < 1 || days > MAX_USAGE_DAYS) reader.fail('days', `a whole number of days from 1 to ${MAX_USAGE_DAYS}`);
  if (dayNumber(to) - dayNumber(from) + 1 !== days) throw new UsageError(`${label}: from ${from} to ${to} is not ${days} days`);
  const usage = reader.list('usage').map((item, index) => elementUse(label, `usage[${index}]`, item));
  const trustedDocuments = reader.list('trustedDocuments').map((item, index) => clientDocuments(label, `trustedDocuments[${index}]`, item));
  return { format: USAGE_EXPORT_FORMAT, site, variant, generatedAt, from, to, days, usage, trustedDocuments };
}

/** Checks `--days` (a whole number, at most the export's window) and `--site` against the export. */
export function checkUsageWindow(usage: UsageExport, label: string, days: number, site: string | undefined): void {
  if (site !== undefined && !sameSite(site, usage.site)) throw new UsageError(`${label} is the usage of ${usage.site}, not of ${site}`);
  if (days > usage.days) {
    throw new UsageError(`--days ${days} is more than ${label} covers: ${usage.days} day${usage.days === 1 ? '' : 's'} (${usage.from} to ${usage.to}); pass --days ${usage.days} or less, or export more days (npx schoolgate usage export --days ${days})`);
  }
}

/** `--days`: a whole number of days from 1 to MAX_USAGE_DAYS. */
export function parseDays(text: string | undefined): number {
  if (text === undefined) return DEFAULT_USAGE_DAYS;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_USAGE_DAYS) throw new UsageError(`--days ${text} is not a whole number of days from 1 to ${MAX_USAGE_DAYS}`);
  return Number(text);
}

/** Whether a counted element is one the change names: exactly, a field's arguments with the field, a type's members with the type. */
function touches(element: UsedElement, used: ElementUse): boolean {
  if (element.api !== used.api) return false;
  if (used.element === element.name) return true;
  if (element.api !== 'graphql') return false;
  return element.name.includes('.') ? used.element.startsWith(`${element.name}(`) : used.element.startsWith(`${element.name}.`);
}

/** The first instant of the judged days: the export's last day and the `days - 1` days before it. */
export function judgedSince(usage: UsageExport, days: number): string {
  return new Date((dayNumber(usage.to) - days + 1) * DAY_MS).toISOString();
}

/** The clients that used any of `elements` since `since`, summed per client, most uses first. */
export function clientsUsing(usage: UsageExport, elements: readonly UsedElement[], since: string): ChangeClientUse[] {
  const byClient = new Map<string, ChangeClientUse>();
  for (const used of usage.usage) {
    if (!elements.some((element) => touches(element, used))) continue;
    for (const client of used.clients) {
      if (Date.parse(client.lastUsedAt) < Date.parse(since)) continue;
      const key = client.clientId ?? '';
      const known = byClient.get(key);
      if (known === undefined) {
        byClient.set(key, { clientId: client.clientId, clientName: client.clientName, uses: client.uses, lastUsedAt: client.lastUsedAt, elements: [used.element] });
        continue;
      }
      known.uses += client.uses;
      if (client.lastUsedAt > known.lastUsedAt) known.lastUsedAt = client.lastUsedAt;
      if (!known.elements.includes(used.element)) known.elements.push(used.element);
    }
  }
  return [...byClient.values()].sort((a, b) => b.uses - a.uses || (a.clientId ?? '').localeCompare(b.clientId ?? ''));
}

/** The rows usage speaks about: those that break or warn. A safe change needs no audience. */
const JUDGED = new Set(['breaking', 'dangerous', 'deprecated']);

/** A GraphQL change only in the other variant cannot be judged by this site's traffic: its coordinates are not served there. */
function appliesToSite(change: ContractChange, usage: UsageExport): boolean {
  return change.api !== 'graphql' || change.variants === undefined || change.variants.includes(usage.variant);
}

/** Each change with its usage verdict (see the top of this file). Changes without elements are left as they are. */
export function judgeByUsage(changes: readonly ContractChange[], usage: UsageExport, days: number): ContractChange[] {
  const since = judgedSince(usage, days);
  return changes.map((change) => {
    if (!JUDGED.has(change.severity) || change.elements === undefined || change.elements.length === 0 || !appliesToSite(change, usage)) return change;
    const clients = clientsUsing(usage, change.elements, since);
    const base = { site: usage.site, days, clients };
    if (clients.length > 0) {
      if (change.severity !== 'breaking' || change.allowedBecause === undefined) return { ...change, usage: { verdict: 'used', ...base } };
      // Used past its sunset: the traffic outweighs the calendar; the allowlist can still accept it explicitly.
      const { allowedBecause, ...rest } = change;
      return { ...rest, usage: { verdict: 'used', ...base, overruled: allowedBecause } };
    }
    const judged: ContractChange = { ...change, usage: { verdict: 'unused', ...base } };
    if (change.severity === 'breaking' && change.allowedBecause === undefined) judged.allowedBecause = `unused for ${days} day${days === 1 ? '' : 's'} on ${usage.site} (to ${usage.to})`;
    return judged;
  });
}

/** The clients a Markdown row names, most uses first. */
const MARKDOWN_CLIENTS = 10;

function clientLabel(client: ChangeClientUse): string {
  if (client.clientId === null) return 'anonymous callers';
  return client.clientName === null || client.clientName === client.clientId ? `\`${client.clientId}\`` : `${client.clientName} (\`${client.clientId}\`)`;
}

/** The usage verdict as one sentence of a Markdown row: "**Breaking and used by** Study Buddy (`sb`): 12 uses, last 2026-11-20 …" */
export function usageNote(change: ContractChange): string {
  const { usage } = change;
  if (usage === undefined) return '';
  const period = `${usage.days} day${usage.days === 1 ? '' : 's'}`;
  if (usage.verdict === 'unused') return change.severity === 'breaking' ? ` **Unused** for ${period} on ${usage.site}.` : ` No client used it for ${period} on ${usage.site}.`;
  // A pull-request comment stays readable with hundreds of clients; the JSON report lists them all.
  const shown = usage.clients.slice(0, MARKDOWN_CLIENTS).map((client) => `${clientLabel(client)}: ${client.uses} use${client.uses === 1 ? '' : 's'}, last ${client.lastUsedAt.slice(0, 10)}`);
  const more = usage.clients.length - shown.length;
  const clients = `${shown.join('; ')}${more > 0 ? `; and ${more} more client${more === 1 ? '' : 's'}` : ''}`;
  const lead = change.severity === 'breaking' ? '**Breaking and used by**' : '**Still used by**';
  const overruled = usage.overruled === undefined ? '' : ` Not allowed by its sunset while it is used (${usage.overruled}).`;
  return ` ${lead} ${clients} (last ${period} on ${usage.site}).${overruled}`;
}
