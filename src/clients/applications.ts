import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { clientNameKey } from './vendor-platforms.js';
import { endGrantsWhere } from '../grants/end-grant.js';
import { revokePairsWhere } from '../grants/revocation.js';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../shared/errors.js';
import { sha256Hex } from '../shared/random.js';
import { actorIds, clientIdsByRef, recordedActor, type Actor, type RecordedActor } from './actors.js';
import { mergeSettings, sameSettings, settingsColumns, settingsOf, settingsProblems, defaultSettings, type ClientSettingsInput } from './client-settings.js';
import { clientFromRow, createClient, rotateClientSecret, validateClientInput, type ClientKind, type ClientRow, type OAuthClient } from './clients.js';
import type { Audience } from './scopes.js';
import type { Queryable } from '../db/queries.js';
import { withTransaction } from '../db/transaction.js';

/**
 * A site's OAuth applications as operators manage them (Developers > OAuth applications; the admin API's
 * /oauth-applications): every client of the site, whatever its kind, with the `client_name` a vendor platform is
 * matched by. Shared by the admin API and the admin pages; rules in docs/admin-api.md.
 */

export interface Application {
  client: OAuthClient;
  /** For a vendor platform, the `client_name` /api/oauth/register matches; null otherwise. */
  vendorClientName: string | null;
  /** The operator or service client that created it (admin API, admin area); null otherwise. */
  createdBy: RecordedActor;
}

/** An oauth_clients row with who created it. */
type ApplicationRow = ClientRow & { created_by_user_id?: number | string | null; created_by_client_ref?: number | string | null };

/** The kinds an operator creates; metadata-document clients appear when their client first authorizes. */
export type CreatableKind = Exclude<ClientKind, 'metadata_document'>;

async function vendorNamesOf(db: Queryable, clientRefs: readonly number[]): Promise<Map<number, string>> {
  if (clientRefs.length === 0) return new Map();
  const rows: Array<{ client_ref: number; client_name: string }> = await db('vendor_platforms').whereIn('client_ref', clientRefs).orderBy('id', 'desc').select('client_ref', 'client_name');
  // Newest first, so in the map the oldest name of a client wins when it has two (an import can give it two).
  return new Map(rows.map((row) => [row.client_ref, row.client_name]));
}

async function applicationsFromRows(db: Queryable, rows: readonly ApplicationRow[]): Promise<Application[]> {
  const clients = rows.map(clientFromRow);
  const [names, creators] = await Promise.all([
    vendorNamesOf(
      db,
      clients.filter((client) => client.kind === 'vendor_platform').map((client) => client.ref),
    ),
    clientIdsByRef(
      db,
      rows.map((row) => row.created_by_client_ref),
    ),
  ]);
  return clients.map((client, index) => ({
    client,
    vendorClientName: names.get(client.ref) ?? null,
    createdBy: recordedActor(rows[index]?.created_by_user_id, rows[index]?.created_by_client_ref, creators),
  }));
}

export async function findApplication(db: Queryable, siteId: number, clientId: string): Promise<Application | null> {
  const row = await db<ApplicationRow>('oauth_clients').where({ site_id: siteId, client_id_hash: sha256Hex(clientId) }).first();
  if (!row) return null;
  const [application] = await applicationsFromRows(db, [row]);
  return application ?? null;
}

export async function requireApplication(db: Queryable, siteId: number, clientId: string): Promise<Application> {
  const application = await findApplication(db, siteId, clientId);
  if (!application) throw new NotFoundError(`No OAuth application of this site has the client_id ${clientId}.`, 'not_found');
  return application;
}

// --- Listing ----------------------------------------------------------------------------------------------------------

export interface ApplicationFilters {
  audience?: Audience | undefined;
  confidential?: boolean | undefined;
  kind?: ClientKind | undefined;
  reviewed?: boolean | undefined;
}

const APPLICATION_SORTS: SortColumns<'createdAt' | 'updatedAt' | 'name'> = {
  createdAt: { column: 'created_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
  name: { column: 'name', type: 'string' },
};

/** One keyset page of the site's applications (src/db/keyset-pagination.ts), newest first unless `sort` says otherwise. */
export async function listApplications(db: Database, siteId: number, filters: ApplicationFilters, query: ListQuery): Promise<{ applications: Application[]; nextCursor: string | null }> {
  const builder = db<ClientRow>('oauth_clients').where({ site_id: siteId });
  const { audience, confidential, kind, reviewed } = filters;
  if (audience !== undefined) builder.andWhere('audience', audience);
  if (confidential !== undefined) builder.andWhere('confidential', confidential);
  if (kind !== undefined) builder.andWhere('kind', kind);
  if (reviewed !== undefined) builder.andWhere('reviewed', reviewed);
  const page = await listPage<ClientRow, keyof typeof APPLICATION_SORTS>(builder, query, { sorts: APPLICATION_SORTS, defaultSort: '-createdAt', filters: { ...filters } });
  return { applications: await applicationsFromRows(db, page.rows), nextCursor: page.nextCursor };
}

// --- Creating ---------------------------------------------------------------------------------------------------------

export interface NewApplication {
  name: string;
  audience: Audience;
  /** The confidential-application checkbox: public → `none` + PKCE S256, no secret; confidential → `client_secret_post`. */
  confidential: boolean;
  kind: CreatableKind;
  redirectUris: readonly string[];
  scopes: readonly string[];
  vendorClientName?: string | undefined;
  /** The operator or service client creating it. */
  createdBy?: Actor | undefined;
  /** Authentication method, keys, DPoP and logout addresses (src/clients/client-settings.ts). */
  settings?: ClientSettingsInput | undefined;
}

/** Runs validateClientInput and returns its problems instead of throwing them, so every rule is reported at once. */
function clientInputProblems(input: Parameters<typeof validateClientInput>[0]): FieldProblem[] {
  try {
    validateClientInput(input);
    return [];
  } catch (error) {
    if (error instanceof ValidationError) return [...error.problems];
    throw error;
  }
}

function vendorNameProblem(name: string): FieldProblem | null {
  return clientNameKey(name) === '' ? { pointer: '/vendorClientName', message: 'must not be empty' } : null;
}

async function requireVendorNameFree(db: Queryable, siteId: number, name: string, exceptClientRef?: number): Promise<void> {
  const key = clientNameKey(name);
  const rows: Array<{ client_ref: number; client_name: string }> = await db('vendor_platforms').where({ site_id: siteId }).select('client_ref', 'client_name');
  if (rows.some((row) => row.client_ref !== exceptClientRef && clientNameKey(row.client_name) === key)) {
    throw new ConflictError(`Another vendor platform of this site is already matched by the client_name "${name.trim()}".`, 'vendor_client_name_taken');
  }
}

/**
 * Creates an application; a confidential one's secret is returned here once (only its hash is stored). A vendor
 * platform is a public operator client with the `client_name` the registration endpoint matches, written together
 * with its allowlist row.
 */
export async function createApplication(db: Database, siteId: number, input: NewApplication): Promise<{ application: Application; clientSecret: string | null }> {
  const problems = clientInputProblems(input);
  if (input.kind === 'vendor_platform') {
    if (input.audience !== 'operator') problems.push({ pointer: '/audience', message: 'a vendor platform is an operator application' });
    if (input.confidential) problems.push({ pointer: '/confidential', message: 'a vendor platform is a public application: the registration endpoint hands out no secret' });
    if (input.vendorClientName === undefined) problems.push({ pointer: '/vendorClientName', message: 'is required for a vendor platform' });
    else {
      const problem = vendorNameProblem(input.vendorClientName);
      if (problem) problems.push(problem);
    }
  } else if (input.vendorClientName !== undefined) {
    problems.push({ pointer: '/vendorClientName', message: 'is only for a vendor_platform application' });
  }
  if (input.kind === 'service' && !input.confidential) problems.push({ pointer: '/confidential', message: 'a service client is confidential: it authenticates with a secret or a key' });
  problems.push(...settingsProblems(mergeSettings(defaultSettings(input.confidential), input.settings ?? {}), input));
  if (problems.length > 0) throw new ValidationError('The OAuth application is not valid.', problems);
  const created = await withTransaction(db, async (trx) => {
    const vendorClientName = input.kind === 'vendor_platform' ? input.vendorClientName?.trim() : undefined;
    if (vendorClientName !== undefined) await requireVendorNameFree(trx, siteId, vendorClientName);
    const result = await createClient(trx, siteId, {
      name: input.name,
      audience: input.audience,
      confidential: input.confidential,
      kind: input.kind,
      scopes: input.scopes,
      redirectUris: input.redirectUris,
      ...(input.settings === undefined ? {} : { settings: input.settings }),
      ...creatorColumns(input.createdBy),
    });
    if (vendorClientName !== undefined) {
      await trx('vendor_platforms').insert({ site_id: siteId, client_name: vendorClientName, client_ref: result.client.ref, created_at: new Date() });
    }
    return result;
  });
  return { application: await requireApplication(db, siteId, created.client.clientId), clientSecret: created.clientSecret };
}

function creatorColumns(actor: Actor | undefined): { createdByUserId?: number; createdByClientRef?: number } {
  const { userId, clientRef } = actorIds(actor);
  return { ...(userId === null ? {} : { createdByUserId: userId }), ...(clientRef === null ? {} : { createdByClientRef: clientRef }) };
}

// --- Changing ---------------------------------------------------------------------------------------------------------

export interface ApplicationChanges extends ClientSettingsInput {
  name?: string;
  redirectUris?: readonly string[];
  scopes?: readonly string[];
  vendorClientName?: string;
}

/** The methods that need a stored secret (RFC 6749 2.3.1). */
const SECRET_METHODS: readonly string[] = ['client_secret_post', 'client_secret_basic'];

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** Compare-and-set on `version`: a write based on an older version loses (ConflictError `version_mismatch`). */
async function bumpVersion(trx: Knex.Transaction, client: OAuthClient, expectedVersion: number, columns: Record<string, unknown>): Promise<void> {
  const updated = await trx('oauth_clients')
    .where({ id: client.ref, version: expectedVersion })
    .update({ ...columns, version: trx.raw('version + 1'), updated_at: new Date() });
  if (updated === 0) throw new ConflictError('The OAuth application was changed by someone else; read it again and retry.', 'version_mismatch');
}

/**
 * A merge patch of an application, applied only if it is still at `expectedVersion`. `audience`, `confidential` and
 * `kind` are fixed at creation. A metadata-document application's name, redirect URIs and scopes come from its
 * document (re-read whenever its cache expires), so they cannot be changed here.
 */
export async function updateApplication(db: Database, siteId: number, clientId: string, changes: ApplicationChanges, expectedVersion: number): Promise<Application> {
  const current = await requireApplication(db, siteId, clientId);
  const { client } = current;
  const touched = Object.entries(changes).filter(([, value]) => value !== undefined);
  if (client.kind === 'metadata_document' && touched.length > 0) {
    throw new ConflictError(`${clientId} is described by its Client ID Metadata Document: its name, redirect URIs and scopes change only there. Review or delete it instead.`, 'managed_by_metadata_document');
  }
  const problems = clientInputProblems({
    name: changes.name ?? client.name,
    audience: client.audience,
    kind: client.kind,
    scopes: changes.scopes ?? client.scopes,
    redirectUris: changes.redirectUris ?? client.redirectUris,
  });
  const settings = mergeSettings(settingsOf(client), changes);
  problems.push(...settingsProblems(settings, client));
  if (changes.vendorClientName !== undefined) {
    if (client.kind !== 'vendor_platform') problems.push({ pointer: '/vendorClientName', message: 'is only for a vendor_platform application' });
    else {
      const problem = vendorNameProblem(changes.vendorClientName);
      if (problem) problems.push(problem);
    }
  }
  if (problems.length > 0) throw new ValidationError('The OAuth application is not valid.', problems);
  if (client.version !== expectedVersion) throw new ConflictError('The OAuth application was changed by someone else; read it again and retry.', 'version_mismatch');
  const changesSettings = !sameSettings(settings, settingsOf(client));
  if (changesSettings && SECRET_METHODS.includes(settings.tokenEndpointAuthMethod) && !SECRET_METHODS.includes(client.tokenEndpointAuthMethod)) {
    const stored: { secret_hash: string | null } | undefined = await db('oauth_clients').where({ id: client.ref }).first('secret_hash');
    if (!stored?.secret_hash) {
      throw new ConflictError(`${clientId} has no client secret yet (it was created for private_key_jwt): rotate its secret first, then switch to ${settings.tokenEndpointAuthMethod}.`, 'application_has_no_secret');
    }
  }
  const columns: Record<string, unknown> = changesSettings ? settingsColumns(settings) : {};
  if (changes.name !== undefined) columns.name = changes.name.trim();
  if (changes.redirectUris !== undefined) columns.redirect_uris = JSON.stringify(changes.redirectUris);
  // validateClientInput also drops repeated scopes.
  const scopes = changes.scopes === undefined ? undefined : validateClientInput({ name: client.name, audience: client.audience, kind: client.kind, scopes: changes.scopes, redirectUris: client.redirectUris });
  if (scopes !== undefined) columns.scopes = JSON.stringify(scopes);
  const vendorClientName = changes.vendorClientName?.trim();
  const renamesVendor = vendorClientName !== undefined && vendorClientName !== current.vendorClientName;
  const changesClient =
    changesSettings ||
    (columns.name !== undefined && columns.name !== client.name) ||
    (changes.redirectUris !== undefined && !sameList(changes.redirectUris, client.redirectUris)) ||
    (scopes !== undefined && !sameList(scopes, client.scopes));
  if (!changesClient && !renamesVendor) return current;
  await withTransaction(db, async (trx) => {
    if (renamesVendor) {
      await requireVendorNameFree(trx, siteId, vendorClientName, client.ref);
      await trx('vendor_platforms').where({ client_ref: client.ref }).delete();
      await trx('vendor_platforms').insert({ site_id: siteId, client_name: vendorClientName, client_ref: client.ref, created_at: new Date() });
    }
    await bumpVersion(trx, client, expectedVersion, columns);
  });
  return requireApplication(db, siteId, clientId);
}

/**
 * Deletes an application: every token pair issued to it is revoked, then the client row goes, and with it (foreign
 * keys, ON DELETE CASCADE) its codes, pending authorizations, token pairs and vendor-platform entry.
 */
export async function deleteApplication(db: Database, siteId: number, clientId: string): Promise<{ application: Application; revokedPairs: number }> {
  const application = await requireApplication(db, siteId, clientId);
  const revokedPairs = await withTransaction(db, async (trx) => {
    const revoked = await revokePairsWhere(trx, { client_ref: application.client.ref, site_id: siteId }, 'revoked');
    await trx('oauth_clients').where({ id: application.client.ref, site_id: siteId }).delete();
    return revoked;
  });
  return { application, revokedPairs };
}

/**
 * Revokes every live token pair of an application at once (RFC 7009 2.1 semantics, for the operator): each token is
 * refused from its next presentation on, and each grant that ends sends the application its back-channel logout
 * notice. The application stays and may get new tokens.
 */
export async function revokeApplicationTokens(db: Database, siteId: number, clientId: string): Promise<{ application: Application; revokedPairs: number }> {
  const application = await requireApplication(db, siteId, clientId);
  const revokedPairs = await endGrantsWhere(db, siteId, (pairs) => pairs.where({ client_ref: application.client.ref }), 'revoked');
  return { application, revokedPairs };
}

/** A new secret for a confidential application, returned once; the old one stops working at once. */
export async function rotateApplicationSecret(db: Database, siteId: number, clientId: string): Promise<{ application: Application; clientSecret: string }> {
  const current = await requireApplication(db, siteId, clientId);
  if (!current.client.confidential) {
    throw new ConflictError(`${clientId} is a public application (token endpoint auth method none); it has no secret to rotate.`, 'application_not_confidential');
  }
  const { clientSecret } = await rotateClientSecret(db, siteId, clientId);
  return { application: await requireApplication(db, siteId, clientId), clientSecret };
}

/**
 * Marks a metadata-document application reviewed, so its whole scope list can be granted (Authentication 5).
 * Reviewing a reviewed one changes nothing. Other kinds are always reviewed.
 */
export async function reviewApplication(db: Database, siteId: number, clientId: string): Promise<Application> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const current = await requireApplication(db, siteId, clientId);
    if (current.client.kind !== 'metadata_document') {
      throw new ConflictError(`${clientId} is not a Client ID Metadata Document application; only those need a review.`, 'application_not_metadata_document');
    }
    if (current.client.reviewed) return current;
    // The same compare-and-set as a document refresh (client-store.ts), so a refresh and a review never overwrite each other.
    const updated = await db('oauth_clients')
      .where({ id: current.client.ref, version: current.client.version })
      .update({ reviewed: true, version: db.raw('version + 1'), updated_at: new Date() });
    if (updated > 0) return requireApplication(db, siteId, clientId);
  }
  throw new ConflictError('The application kept changing while it was being reviewed; retry.', 'version_mismatch');
}
