import type { Database } from '../db/connection.js';
import { importSiteDocument, type ImportReport } from '../import/import-site.js';
import type { ImportDocument, OAuthClientInput, Role } from '../import/document.js';
import { validateImportDocument } from '../import/validate.js';
import demoSchool from './demo-school.json' with { type: 'json' };

/**
 * The demo school seeded into an empty database: "Northwind Academy of Design", a Taipei design school. It is the
 * ordinary import document demo-school.json (docs/import.schema.json) with two notations this loader fills in when it
 * is loaded, so its meetings are always past, live and upcoming and its payment deadlines pending or expired
 * (docs/demo.md):
 * - `{origin}` in any text: the origin the school is seeded at;
 * - a time relative to the load: `now`, `today@HH:MM` or `next-<weekday>@HH:MM` (the first such moment after now),
 *   wall-clock times in the site's timezone, followed by any number of signed ISO 8601 durations (`-P3W`, `+PT45M`).
 */

/** The document as stored, before its notations are filled in: read for the logins and clients below. */
const TEMPLATE = demoSchool as unknown as ImportDocument;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DURATION = '[+-]P(?:\\d+W)?(?:\\d+D)?(?:T(?:\\d+H)?(?:\\d+M)?(?:\\d+S)?)?';
const RELATIVE_TIME = new RegExp(`^(?:now|(?:today|next-(${WEEKDAYS.join('|')}))@(\\d\\d):(\\d\\d))((?:${DURATION})*)$`);
const DURATION_PART = /([+-])P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?/g;

/** The sum of signed ISO 8601 durations such as `-P2D+PT3H`, in milliseconds (days are 24 hours of wall clock). */
function durationSum(text: string): number {
  let total = 0;
  for (const [, sign, weeks, days, hours, minutes, seconds] of text.matchAll(DURATION_PART)) {
    const length = Number(weeks ?? 0) * 7 * DAY + Number(days ?? 0) * DAY + Number(hours ?? 0) * HOUR + Number(minutes ?? 0) * MINUTE + Number(seconds ?? 0) * 1000;
    total += sign === '-' ? -length : length;
  }
  return total;
}

/** One formatter per zone: building one costs far more than using it. */
const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** How far the zone's wall clock is ahead of UTC at `instant`, in milliseconds. */
function zoneOffset(instant: number, timeZone: string): number {
  let wallClock = wallClocks.get(timeZone);
  if (!wallClock) {
    wallClock = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    wallClocks.set(timeZone, wallClock);
  }
  const parts = wallClock.formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((candidate) => candidate.type === type)?.value);
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute')) - Math.floor(instant / MINUTE) * MINUTE;
}

/** The instant a wall-clock time (as epoch milliseconds of the same fields in UTC) has in the zone. */
function fromWallClock(wall: number, timeZone: string): number {
  return wall - zoneOffset(wall - zoneOffset(wall, timeZone), timeZone);
}

/** The RFC 3339 time a relative time names, or undefined for any other text. */
function resolveTime(text: string, now: number, timeZone: string): string | undefined {
  const match = RELATIVE_TIME.exec(text);
  if (!match) return undefined;
  const [, weekday, hours, minutes, durations = ''] = match;
  if (hours === undefined) return new Date(now + durationSum(durations)).toISOString();
  const wallNow = now + zoneOffset(now, timeZone);
  let wall = Math.floor(wallNow / DAY) * DAY + Number(hours) * HOUR + Number(minutes) * MINUTE;
  if (weekday !== undefined) {
    wall += ((WEEKDAYS.indexOf(weekday) - new Date(wallNow).getUTCDay() + 7) % 7) * DAY;
    if (fromWallClock(wall, timeZone) <= now) wall += 7 * DAY;
  }
  return new Date(fromWallClock(wall + durationSum(durations), timeZone)).toISOString();
}

/** A deep copy of a JSON value with every string passed through `fill`. */
function mapStrings(value: unknown, fill: (text: string) => string): unknown {
  if (typeof value === 'string') return fill(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, fill));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, fill)]));
  return value;
}

/** The document with its notations filled in, not yet validated. Times count from `now` rounded down to the minute. */
function fillDemoDocument(origin: string, now: Date): unknown {
  const start = Math.floor(now.getTime() / MINUTE) * MINUTE;
  const timeZone = TEMPLATE.site.timezone ?? 'UTC';
  return mapStrings(demoSchool, (text) => resolveTime(text, start, timeZone) ?? text.replaceAll('{origin}', origin));
}

/** The demo school at `origin` as of `now`, validated like every import document. */
export function buildDemoDocument(origin: string, now: Date): ImportDocument {
  return validateImportDocument(fillDemoDocument(origin, now));
}

/** The first account with the role and a password: the demo's sign-ins (docs/demo.md lists them). */
function login(role: Role): { readonly email: string; readonly password: string; readonly name: string } {
  const user = TEMPLATE.users?.find((candidate) => candidate.roles.includes(role) && candidate.password !== undefined);
  if (user?.password === undefined) throw new Error(`demo-school.json has no ${role} with a password`);
  return { email: user.email, password: user.password, name: user.name };
}

/** The demo's own OAuth client of the audience (not a vendor platform's). */
function demoClient(audience: 'member' | 'operator'): OAuthClientInput {
  const client = TEMPLATE.oauthClients?.find((candidate) => candidate.audience === audience && candidate.kind === undefined);
  if (!client) throw new Error(`demo-school.json has no ${audience} client`);
  return client;
}

function publicClient({ clientId, redirectUris, scopes }: OAuthClientInput) {
  return { clientId, redirectUris: [...redirectUris] as readonly string[], scopes: [...scopes] as readonly string[] };
}

function confidentialClient(client: OAuthClientInput) {
  if (client.clientSecret === undefined) throw new Error(`demo-school.json gives ${client.clientId} no secret`);
  return { ...publicClient(client), clientSecret: client.clientSecret };
}

export const DEMO_LOGINS = { member: login('student'), operator: login('operator'), staff: login('staff') } as const;
export const DEMO_CLIENTS = { member: publicClient(demoClient('member')), operator: confidentialClient(demoClient('operator')) } as const;

async function siteCount(db: Database): Promise<number> {
  const row = await db('sites').count({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

/**
 * Seeds the demo school into a database with no site at all, through the importer. Returns null (and writes nothing)
 * when any site exists, so a restart never touches a configured or already-seeded database. When two instances start
 * on one empty database at once, the one whose import loses the race finds the other's site and returns null.
 */
export async function seedDemoSchoolIfEmpty(db: Database, origin: string, now = new Date()): Promise<ImportReport | null> {
  if ((await siteCount(db)) > 0) return null;
  try {
    return await importSiteDocument(db, fillDemoDocument(origin, now));
  } catch (error) {
    if ((await siteCount(db)) > 0) return null;
    throw error;
  }
}
