import { clientFromRow, createClient, type ClientRow, type OAuthClient } from './clients.js';
import type { Database } from '../db/connection.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { sha256Hex } from '../shared/random.js';
import { withTransaction } from '../db/transaction.js';

/** One entry of a site's vendor-platform allowlist: a known `client_name` and the public operator client it maps to. */
export interface VendorPlatform {
  id: number;
  siteId: number;
  clientName: string;
  client: OAuthClient;
  createdAt: Date;
}

interface VendorPlatformRow {
  id: number;
  site_id: number;
  client_name: string;
  client_ref: number;
  created_at: unknown;
}

/**
 * How two client names are compared: trimmed, Unicode-normalised and case-insensitive, so "ChatGPT", "chatgpt" and
 * " ChatGPT " name the same platform (on SQLite and MySQL alike, whatever the column's collation).
 */
export function clientNameKey(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase();
}

/** The site's allowlist with each platform's client, in the order they were added. */
export async function listVendorPlatforms(db: Database, siteId: number): Promise<VendorPlatform[]> {
  const rows = await db<VendorPlatformRow>('vendor_platforms').where({ site_id: siteId }).orderBy('id');
  if (rows.length === 0) return [];
  const clientRows = await db<ClientRow>('oauth_clients').whereIn('id', rows.map((row) => row.client_ref));
  const clients = new Map(clientRows.map((row) => [row.id, clientFromRow(row)]));
  return rows.flatMap((row) => {
    const client = clients.get(row.client_ref);
    return client ? [{ id: row.id, siteId: row.site_id, clientName: row.client_name, client, createdAt: client.createdAt }] : [];
  });
}

/** The platform a registration request's `client_name` names, or null. Allowlists are short, so matching happens here. */
export async function findVendorPlatform(db: Database, siteId: number, clientName: string): Promise<VendorPlatform | null> {
  const key = clientNameKey(clientName);
  if (key === '') return null;
  const platforms = await listVendorPlatforms(db, siteId);
  return platforms.find((platform) => clientNameKey(platform.clientName) === key) ?? null;
}

export interface NewVendorPlatform {
  clientName: string;
  redirectUris: readonly string[];
  scopes: readonly string[];
  /** A chosen client_id (e.g. `vendor-chatgpt`); generated otherwise. */
  clientId?: string | undefined;
}

/**
 * Adds a platform to the allowlist: a public operator client (`none` + PKCE S256, kind `vendor_platform`, no secret)
 * and the allowlist row naming it, in one transaction.
 */
export async function addVendorPlatform(db: Database, siteId: number, input: NewVendorPlatform): Promise<VendorPlatform> {
  const clientName = input.clientName.trim();
  if (clientName === '') throw new ValidationError('a vendor platform needs a client name', [{ pointer: '/clientName', message: 'must not be empty' }]);
  await withTransaction(db, async (trx) => {
    if (await findVendorPlatform(trx, siteId, clientName)) {
      throw new ConflictError(`the vendor platform "${clientName}" is on this site's allowlist already`, 'vendor_platform_exists');
    }
    if (input.clientId !== undefined && (await trx('oauth_clients').where({ site_id: siteId, client_id_hash: sha256Hex(input.clientId) }).first())) {
      throw new ConflictError(`a client with client_id ${input.clientId} exists already at this site`, 'client_exists');
    }
    const { client } = await createClient(trx, siteId, {
      name: clientName,
      audience: 'operator',
      confidential: false,
      kind: 'vendor_platform',
      scopes: input.scopes,
      redirectUris: input.redirectUris,
      ...(input.clientId === undefined ? {} : { clientId: input.clientId }),
    });
    await trx('vendor_platforms').insert({ site_id: siteId, client_name: clientName, client_ref: client.ref, created_at: new Date() });
  });
  const added = await findVendorPlatform(db, siteId, clientName);
  if (!added) throw new Error(`vendor platform "${clientName}" vanished right after it was added`);
  return added;
}

/**
 * Takes a platform off the allowlist, so the registration endpoint stops answering its name. Its client keeps working
 * for tokens already issued unless `deleteClient` is set, which deletes the client and with it every code and token
 * pair it holds.
 */
export async function removeVendorPlatform(db: Database, siteId: number, clientName: string, options: { deleteClient?: boolean } = {}): Promise<{ platform: VendorPlatform; clientDeleted: boolean }> {
  const platform = await findVendorPlatform(db, siteId, clientName);
  if (!platform) throw new NotFoundError(`no vendor platform "${clientName.trim()}" on this site's allowlist`, 'vendor_platform_not_found');
  await withTransaction(db, async (trx) => {
    await trx('vendor_platforms').where({ id: platform.id }).delete();
    if (options.deleteClient) await trx('oauth_clients').where({ id: platform.client.ref }).delete();
  });
  return { platform, clientDeleted: Boolean(options.deleteClient) };
}
