import { ConfigError } from '../config/config-error.js';
import { normalizeOrigin } from '../config/config.js';
import { requireDate, type Database } from '../db/connection.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import type { ClientKind } from '../clients/client.js';

let siteWrites = 0;

/** Counts this process's writes to site rows; the site cache drops entries read before the latest one. */
export function siteWriteGeneration(): number {
  return siteWrites;
}

/** Call after writing a site row (after the commit, where there is a transaction). */
export function siteChanged(): void {
  siteWrites += 1;
}

export interface Site {
  id: number;
  origin: string;
  subdomain: string;
  name: string;
  description: string | null;
  timezone: string;
  defaultCurrency: string;
  contactEmail: string | null;
  mcpConnectionsEnabled: boolean;
  openRegistration: boolean;
  /** The client kinds that may send registered (trusted) documents only (docs/trusted-documents.md); none by default. */
  trustedDocumentsRequiredFor: readonly ClientKind[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface SiteRow {
  id: number;
  origin: string;
  subdomain: string;
  name: string;
  description: string | null;
  timezone: string;
  default_currency: string;
  contact_email: string | null;
  mcp_connections_enabled: number | boolean;
  open_registration: number | boolean;
  trusted_documents_required_for?: string | null;
  version: number;
  created_at: unknown;
  updated_at: unknown;
}

export function siteFromRow(row: SiteRow): Site {
  return {
    id: row.id,
    origin: row.origin,
    subdomain: row.subdomain,
    name: row.name,
    description: row.description,
    timezone: row.timezone,
    defaultCurrency: row.default_currency,
    contactEmail: row.contact_email,
    mcpConnectionsEnabled: Boolean(row.mcp_connections_enabled),
    openRegistration: Boolean(row.open_registration),
    trustedDocumentsRequiredFor: trustedDocumentKindsFromColumn(row.trusted_documents_required_for),
    version: row.version,
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** The client kinds a site can require trusted documents of: every kind that holds member tokens (not `service`). */
export const TRUSTED_DOCUMENT_CLIENT_KINDS = ['vendor_platform', 'metadata_document', 'operator_created'] as const satisfies readonly ClientKind[];

function isTrustedDocumentClientKind(value: string): value is (typeof TRUSTED_DOCUMENT_CLIENT_KINDS)[number] {
  return (TRUSTED_DOCUMENT_CLIENT_KINDS as readonly string[]).includes(value);
}

/** The column is a comma list; an unknown word (from a newer version) is ignored rather than failing every request. */
function trustedDocumentKindsFromColumn(column: string | null | undefined): ClientKind[] {
  if (!column) return [];
  return column.split(',').map((kind) => kind.trim()).filter(isTrustedDocumentClientKind);
}

/**
 * The stored form of a list of client kinds: known kinds only (a ValidationError names the others, at `pointer`),
 * without repeats, in the order of TRUSTED_DOCUMENT_CLIENT_KINDS.
 */
export function parseTrustedDocumentKinds(kinds: readonly string[], pointer = '/trustedDocumentsRequiredFor'): ClientKind[] {
  const unknown = kinds.filter((kind) => !isTrustedDocumentClientKind(kind));
  if (unknown.length > 0) {
    const message = `unknown client kind${unknown.length > 1 ? 's' : ''} ${unknown.map((kind) => `"${kind}"`).join(', ')}: use ${TRUSTED_DOCUMENT_CLIENT_KINDS.join(', ')}`;
    throw new ValidationError(message, [{ pointer, message }]);
  }
  return TRUSTED_DOCUMENT_CLIENT_KINDS.filter((kind) => kinds.includes(kind));
}

export async function findSiteByOrigin(db: Database, origin: string): Promise<Site | null> {
  const row = await db<SiteRow>('sites').where({ origin }).first();
  return row ? siteFromRow(row) : null;
}

/** The sites of several origins in one statement (the site cache's background refresh); an origin without a site is absent. */
export async function findSitesByOrigins(db: Database, origins: readonly string[]): Promise<Map<string, Site>> {
  const rows = await db<SiteRow>('sites').whereIn('origin', origins);
  return new Map(rows.map((row) => [row.origin, siteFromRow(row)]));
}

export async function requireSiteByOrigin(db: Database, rawOrigin: string): Promise<Site> {
  const origin = parseOrigin(rawOrigin);
  const site = await findSiteByOrigin(db, origin);
  if (!site) throw new NotFoundError(`no site has the origin ${origin} (see: schoolgate site list)`, 'site_not_found');
  return site;
}

export async function listSites(db: Database): Promise<Site[]> {
  const rows = await db<SiteRow>('sites').orderBy('id');
  return rows.map(siteFromRow);
}

export function parseOrigin(raw: string): string {
  try {
    return normalizeOrigin(raw);
  } catch (error) {
    if (error instanceof ConfigError) throw new ValidationError(error.message, [{ pointer: '/origin', message: error.message }]);
    throw error;
  }
}

/** A subdomain is one DNS label. */
export const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A subdomain label for the site: the first DNS label of its host, or the host made label-safe (127.0.0.1 → 127-0-0-1). */
export function defaultSubdomain(origin: string): string {
  const { hostname, port } = new URL(origin);
  const label = /^[0-9.]+$/.test(hostname) || hostname === 'localhost' ? hostname.replace(/\./g, '-') : (hostname.split('.')[0] ?? hostname);
  return [label, port].filter(Boolean).join('-').toLowerCase();
}

export interface NewSite {
  origin: string;
  name: string;
  subdomain?: string | undefined;
  timezone?: string | undefined;
  defaultCurrency?: string | undefined;
  contactEmail?: string | null | undefined;
  mcpConnectionsEnabled?: boolean | undefined;
  openRegistration?: boolean | undefined;
}

export async function createSite(db: Database, input: NewSite): Promise<Site> {
  const origin = parseOrigin(input.origin);
  const subdomain = (input.subdomain ?? defaultSubdomain(origin)).toLowerCase();
  if (!SUBDOMAIN.test(subdomain)) {
    throw new ValidationError(`subdomain "${subdomain}" is not a DNS label`, [{ pointer: '/subdomain', message: 'must be a DNS label: a-z, 0-9 and -' }]);
  }
  if (input.name.trim() === '') throw new ValidationError('a site needs a name', [{ pointer: '/name', message: 'must not be empty' }]);
  const clash = await db('sites').where({ origin }).orWhere({ subdomain }).first();
  if (clash) throw new ConflictError(`a site with origin ${origin} or subdomain ${subdomain} exists already`, 'site_exists');
  const now = new Date();
  const [id] = await db('sites').insert({
    origin,
    subdomain,
    name: input.name.trim(),
    timezone: input.timezone ?? 'UTC',
    default_currency: (input.defaultCurrency ?? 'USD').toUpperCase(),
    contact_email: input.contactEmail ?? null,
    mcp_connections_enabled: input.mcpConnectionsEnabled ?? false,
    open_registration: input.openRegistration ?? false,
    created_at: now,
    updated_at: now,
  });
  // A new site changes what an unknown origin's answer may say (src/sites/site-cache.ts, onlySite).
  siteChanged();
  return getSite(db, Number(id));
}

export async function getSite(db: Database, id: number): Promise<Site> {
  const row = await db<SiteRow>('sites').where({ id }).first();
  if (!row) throw new NotFoundError(`site ${id} does not exist`, 'site_not_found');
  return siteFromRow(row);
}

export type SiteSettings = Partial<
  Pick<Site, 'name' | 'description' | 'timezone' | 'defaultCurrency' | 'contactEmail' | 'mcpConnectionsEnabled' | 'openRegistration' | 'trustedDocumentsRequiredFor'>
>;

/** Updates settings; with `expectedVersion` the write happens only if nobody changed the site meanwhile. */
export async function updateSite(db: Database, siteId: number, settings: SiteSettings, expectedVersion?: number): Promise<Site> {
  const columns: Record<string, unknown> = {};
  if (settings.name !== undefined) columns.name = settings.name;
  if (settings.description !== undefined) columns.description = settings.description;
  if (settings.timezone !== undefined) columns.timezone = settings.timezone;
  if (settings.defaultCurrency !== undefined) columns.default_currency = settings.defaultCurrency.toUpperCase();
  if (settings.contactEmail !== undefined) columns.contact_email = settings.contactEmail;
  if (settings.mcpConnectionsEnabled !== undefined) columns.mcp_connections_enabled = settings.mcpConnectionsEnabled;
  if (settings.openRegistration !== undefined) columns.open_registration = settings.openRegistration;
  if (settings.trustedDocumentsRequiredFor !== undefined) columns.trusted_documents_required_for = parseTrustedDocumentKinds(settings.trustedDocumentsRequiredFor).join(',');
  const query = db('sites').where({ id: siteId });
  if (expectedVersion !== undefined) query.andWhere({ version: expectedVersion });
  const updated = await query.update({ ...columns, version: db.raw('version + 1'), updated_at: new Date() });
  siteChanged();
  if (updated === 0) {
    await getSite(db, siteId);
    throw new ConflictError('the site was changed by someone else; reload it and retry', 'version_mismatch');
  }
  return getSite(db, siteId);
}
