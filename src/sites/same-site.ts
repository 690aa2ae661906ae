import type { Site } from './sites.js';

const equal = (a: unknown, b: unknown) => a === b;
const sameTime = (a: Date, b: Date) => a.getTime() === b.getTime();

/** How each field compares; typed by Site's keys, so a new field does not compile until it is listed here. */
const FIELDS: { [K in keyof Site]: (a: Site[K], b: Site[K]) => boolean } = {
  id: equal,
  origin: equal,
  subdomain: equal,
  name: equal,
  description: equal,
  timezone: equal,
  defaultCurrency: equal,
  contactEmail: equal,
  mcpConnectionsEnabled: equal,
  openRegistration: equal,
  trustedDocumentsRequiredFor: (a, b) => a.join(',') === b.join(','),
  version: equal,
  createdAt: sameTime,
  updatedAt: sameTime,
};

/**
 * Whether two reads of a site hold the same settings. The site cache keeps the object it has when a refresh reads the
 * same row, so what is built once per site object (MCP tool definitions, src/mcp/tool.ts) is not built again every
 * lifetime. Every field is compared, not only `version`: a row changed by hand keeps its version.
 */
export function sameSite(a: Site, b: Site): boolean {
  return (Object.keys(FIELDS) as Array<keyof Site>).every((key) => (FIELDS[key] as (x: unknown, y: unknown) => boolean)(a[key], b[key]));
}
