import { parseJsonColumn, requireDate, type Database } from '../db/connection.js';
import { randomToken, sha256Hex } from '../shared/random.js';
import { NotFoundError, ValidationError, type FieldProblem } from '../shared/errors.js';
import { generateClientSecret, hashClientSecret } from './client-secrets.js';
import { defaultSettings, mergeSettings, settingsColumns, settingsProblems, type ClientSettingsInput } from './client-settings.js';
import { redirectUriProblems } from './redirect-uris.js';
import { IDENTITY_SCOPES, isScope, scopesForAudience, type Audience, type Scope } from './scopes.js';
import { TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from './auth-methods.js';
import type { ClientJwks, ClientKind, OAuthClient } from './client.js';

export { TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from './auth-methods.js';

export type { ClientJwks, ClientKind, OAuthClient } from './client.js';

export interface ClientRow {
  id: number;
  site_id: number;
  client_id: string;
  client_id_hash: string;
  name: string;
  audience: string;
  confidential: number | boolean;
  token_endpoint_auth_method: string;
  secret_hash: string | null;
  redirect_uris: unknown;
  scopes: unknown;
  kind: string;
  reviewed: number | boolean;
  jwks: unknown;
  jwks_uri: string | null;
  dpop_bound_access_tokens: number | boolean;
  post_logout_redirect_uris: unknown;
  backchannel_logout_uri: string | null;
  version: number;
  created_at: unknown;
  updated_at: unknown;
}

function authMethodOf(column: string): TokenEndpointAuthMethod {
  return (TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(column) ? (column as TokenEndpointAuthMethod) : 'none';
}

/** The `audience` column: operator clients are marked as such; anything else is a member client. */
export function audienceOf(column: unknown): Audience {
  return column === 'operator' ? 'operator' : 'member';
}

export function clientFromRow(row: ClientRow): OAuthClient {
  return {
    ref: row.id,
    siteId: row.site_id,
    clientId: row.client_id,
    name: row.name,
    audience: audienceOf(row.audience),
    confidential: Boolean(row.confidential),
    tokenEndpointAuthMethod: authMethodOf(row.token_endpoint_auth_method),
    redirectUris: parseJsonColumn<string[]>(row.redirect_uris),
    scopes: parseJsonColumn<Scope[]>(row.scopes),
    kind: row.kind as ClientKind,
    reviewed: Boolean(row.reviewed),
    jwks: row.jwks === null || row.jwks === undefined ? null : parseJsonColumn<ClientJwks>(row.jwks),
    jwksUri: row.jwks_uri ?? null,
    dpopBoundAccessTokens: Boolean(row.dpop_bound_access_tokens),
    postLogoutRedirectUris: row.post_logout_redirect_uris === null || row.post_logout_redirect_uris === undefined ? [] : parseJsonColumn<string[]>(row.post_logout_redirect_uris),
    backchannelLogoutUri: row.backchannel_logout_uri ?? null,
    version: row.version,
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

export interface NewClient {
  name: string;
  audience: Audience;
  /** The confidential-application checkbox (spec: OAuth client). */
  confidential: boolean;
  scopes: readonly string[];
  redirectUris: readonly string[];
  kind?: ClientKind;
  /** Chosen by the caller (a vendor platform's allowlist entry, a test); generated otherwise. */
  clientId?: string;
  reviewed?: boolean;
  createdByUserId?: number;
  /** A service client that created this one through the admin API. */
  createdByClientRef?: number;
  /** Authentication method, keys, DPoP and logout addresses; defaults follow `confidential`. */
  settings?: ClientSettingsInput;
}

/** A service client's scopes: the admin API's, never identity (no person signs in) nor account:* (member only). */
export function serviceClientScopes(): Scope[] {
  return scopesForAudience('operator').filter((scope) => !IDENTITY_SCOPES.includes(scope));
}

export function validateClientInput(input: Pick<NewClient, 'name' | 'audience' | 'scopes' | 'redirectUris' | 'kind'>): Scope[] {
  const problems: FieldProblem[] = [];
  if (input.name.trim() === '') problems.push({ pointer: '/name', message: 'must not be empty' });
  const service = input.kind === 'service';
  const allowed = service ? serviceClientScopes() : scopesForAudience(input.audience);
  const scopes: Scope[] = [];
  input.scopes.forEach((scope, index) => {
    if (!isScope(scope)) problems.push({ pointer: `/scopes/${index}`, message: `unknown scope "${scope}"` });
    else if (!allowed.includes(scope)) problems.push({ pointer: `/scopes/${index}`, message: service ? `"${scope}" is not available to service clients: only admin API scopes` : `"${scope}" is not available to ${input.audience} clients` });
    else if (!scopes.includes(scope)) scopes.push(scope);
  });
  if (input.scopes.length === 0) problems.push({ pointer: '/scopes', message: 'pick at least one scope' });
  if (service) {
    // RFC 6749 4.4: no authorization endpoint, so nowhere to redirect to.
    if (input.audience !== 'operator') problems.push({ pointer: '/audience', message: 'a service client is an operator client' });
    if (input.redirectUris.length > 0) problems.push({ pointer: '/redirectUris', message: 'a service client uses client_credentials and has no redirect URIs' });
  } else {
    problems.push(...redirectUriProblems(input.redirectUris, '/redirectUris'));
  }
  if (problems.length > 0) throw new ValidationError('the OAuth application is not valid', problems, 'invalid_client_metadata');
  return scopes;
}

/** Creates a client; a confidential one gets a secret, returned here once and stored only hashed. */
export async function createClient(db: Database, siteId: number, input: NewClient): Promise<{ client: OAuthClient; clientSecret: string | null }> {
  const scopes = validateClientInput(input);
  const kind = input.kind ?? 'operator_created';
  const settings = mergeSettings(defaultSettings(input.confidential), input.settings ?? {});
  const problems = settingsProblems(settings, { confidential: input.confidential, kind });
  if (problems.length > 0) throw new ValidationError('the OAuth application is not valid', problems, 'invalid_client_metadata');
  const clientId = input.clientId ?? `sg_${randomToken(16)}`;
  // Secrets are always generated here; the only way to choose one is an import document, which checks its strength.
  // A private_key_jwt client holds no shared secret (RFC 7523); rotating its secret gives it one for a later switch.
  const clientSecret = input.confidential && settings.tokenEndpointAuthMethod !== 'private_key_jwt' ? generateClientSecret() : null;
  const now = new Date();
  await db('oauth_clients').insert({
    site_id: siteId,
    client_id: clientId,
    client_id_hash: sha256Hex(clientId),
    name: input.name.trim(),
    audience: input.audience,
    confidential: input.confidential,
    ...settingsColumns(settings),
    secret_hash: clientSecret === null ? null : await hashClientSecret(clientSecret),
    secret_rotated_at: clientSecret === null ? null : now,
    redirect_uris: JSON.stringify(input.redirectUris),
    scopes: JSON.stringify(scopes),
    kind,
    reviewed: input.reviewed ?? true,
    created_by_user_id: input.createdByUserId ?? null,
    created_by_client_ref: input.createdByClientRef ?? null,
    created_at: now,
    updated_at: now,
  });
  return { client: await requireClient(db, siteId, clientId), clientSecret };
}

async function findClientRow(db: Database, siteId: number, clientId: string): Promise<ClientRow | undefined> {
  return db<ClientRow>('oauth_clients').where({ site_id: siteId, client_id_hash: sha256Hex(clientId) }).first();
}

/** The client with its stored secret hash, for client authentication at the token and revocation endpoints. */
export async function findClientWithSecret(db: Database, siteId: number, clientId: string): Promise<{ client: OAuthClient; secretHash: string | null } | null> {
  const row = await findClientRow(db, siteId, clientId);
  return row ? { client: clientFromRow(row), secretHash: row.secret_hash } : null;
}

export async function requireClient(db: Database, siteId: number, clientId: string): Promise<OAuthClient> {
  const row = await findClientRow(db, siteId, clientId);
  if (!row) throw new NotFoundError(`no OAuth client ${clientId} at this site`, 'client_not_found');
  return clientFromRow(row);
}

export async function listClients(db: Database, siteId: number): Promise<OAuthClient[]> {
  const rows = await db<ClientRow>('oauth_clients').where({ site_id: siteId }).orderBy('id');
  return rows.map(clientFromRow);
}

/** Issues a new secret for a confidential client; the old one stops working at once. */
export async function rotateClientSecret(db: Database, siteId: number, clientId: string): Promise<{ client: OAuthClient; clientSecret: string }> {
  const client = await requireClient(db, siteId, clientId);
  if (!client.confidential) throw new ValidationError(`${clientId} is a public client; it has no secret to rotate`, [], 'invalid_client_kind');
  const clientSecret = generateClientSecret();
  const now = new Date();
  await db('oauth_clients')
    .where({ id: client.ref })
    .update({ secret_hash: await hashClientSecret(clientSecret), secret_rotated_at: now, updated_at: now, version: db.raw('version + 1') });
  return { client: await requireClient(db, siteId, clientId), clientSecret };
}
