import { parseRole, type Role } from '../../accounts/roles.js';
import { joinSiteProfile, profileColumn } from '../../accounts/site-profiles.js';
import { userFromRow, type User } from '../../accounts/users.js';
import { audienceOf, clientFromRow, type ClientKind, type ClientRow, type OAuthClient } from '../../clients/clients.js';
import { compiledSelect } from '../../db/compiled-select.js';
import type { Database } from '../../db/connection.js';
import { ACCESS_PAIR_COLUMNS, accessPairFromRow, pairFromRow, type AccessTokenPair, type PairRow, type TokenPair } from './store.js';
import { tokenKey } from './token-keys.js';

/** What a protected resource needs of the client an access token was issued to. */
export type AccessTokenClient = Pick<OAuthClient, 'ref' | 'clientId' | 'audience' | 'kind'>;

/** A presented access token with its client, its owner and the owner's roles, read together. */
export interface PresentedAccessToken {
  pair: AccessTokenPair;
  client: AccessTokenClient;
  /** The resource owner's account; null for a token with no resource owner. */
  user: User | null;
  /** The owner's roles at the token's site, sorted. */
  roles: Role[];
}

/** A presented refresh token: the token endpoint also authenticates and re-checks the whole client from this read. */
export interface PresentedRefreshToken extends Omit<PresentedAccessToken, 'pair' | 'client'> {
  pair: TokenPair;
  client: OAuthClient;
  /** The client's secret hash (confidential clients), so the token endpoint can authenticate it from this read. */
  clientSecretHash: string | null;
}

// The columns the records are built from (pairFromRow or accessPairFromRow, clientFromRow, userFromRow) and no more: every column read
// costs its share of the statement's text, the row's metadata and the row's parsing on each request.
const PAIR_COLUMNS: ReadonlyArray<keyof PairRow> = ['id', 'grant_id', 'site_id', 'client_ref', 'user_id', 'scope', 'resource', 'school_id', 'access_expires_at', 'refresh_expires_at', 'auth_time', 'first_used_at', 'last_used_at', 'revoked_at', 'revoked_reason', 'parent_pair_id', 'successor_pair_id', 'rotation_counter', 'created_at', 'dpop_jkt', 'sid'];
const ACCESS_CLIENT_COLUMNS = aliased('client', ['id', 'client_id', 'audience', 'kind']);
const CLIENT_COLUMNS = aliased('client', ['id', 'site_id', 'client_id', 'name', 'audience', 'confidential', 'token_endpoint_auth_method', 'secret_hash', 'redirect_uris', 'scopes', 'kind', 'reviewed', 'jwks', 'jwks_uri', 'dpop_bound_access_tokens', 'post_logout_redirect_uris', 'backchannel_logout_uri', 'version', 'created_at', 'updated_at']);
const ACCOUNT_COLUMNS = aliased('owner', ['id', 'email', 'created_at']);
/** The owner's name and picture as the token's site shows them (src/accounts/site-profiles.ts). */
const PROFILE_COLUMNS = aliased('owner', ['name', 'avatar_url'] as const);
const USER_COLUMNS = [...ACCOUNT_COLUMNS, ...PROFILE_COLUMNS];
type UserRow = Parameters<typeof userFromRow>[0];
type Aliased<Column extends string = string> = ReadonlyArray<{ column: Column; alias: string }>;

type JoinedRow = PairRow & { role: string | null } & Record<string, unknown>;

/** A joined table's columns with their `prefix__column` aliases in the joined row. */
function aliased<Column extends string>(prefix: string, columns: readonly Column[]): Aliased<Column> {
  return columns.map((column) => ({ column, alias: `${prefix}__${column}` }));
}

/** The columns of one joined table, read back from their aliases. */
function unaliased<Row>(row: JoinedRow, columns: Aliased): Row {
  const picked: Record<string, unknown> = {};
  for (const { column, alias } of columns) picked[column] = row[alias];
  return picked as Row;
}

/**
 * One statement for a presented token: its pair, client, owner (with the owner's profile at the token's site) and the
 * owner's roles at the site (one row per role), compiled once (a hot path). Nothing is cached: a revoked token is refused by every instance on its next presentation.
 */
function selectPresentedBy(hashColumn: 't.access_token_hash' | 't.refresh_token_hash', pairColumns: ReadonlyArray<keyof PairRow>, clientColumns: Aliased) {
  return compiledSelect<JoinedRow, [string]>((db, tokenHash) =>
    joinSiteProfile(
      db('token_pairs as t')
        .join('oauth_clients as c', 'c.id', 't.client_ref')
        .leftJoin('users as u', 'u.id', 't.user_id')
        .leftJoin('site_roles as r', (on) => on.on('r.site_id', 't.site_id').andOn('r.user_id', 't.user_id')),
      't.site_id',
      't.user_id',
      'p',
    )
      .where(hashColumn, tokenHash)
      .select(
        ...pairColumns.map((column) => `t.${column}`),
        ...clientColumns.map(({ column, alias }) => `c.${column} as ${alias}`),
        ...ACCOUNT_COLUMNS.map(({ column, alias }) => `u.${column} as ${alias}`),
        ...PROFILE_COLUMNS.map(({ column, alias }) => profileColumn(db, column, alias, 'u', 'p')),
        'r.role',
      ),
  );
}
const selectAccessToken = selectPresentedBy('t.access_token_hash', ACCESS_PAIR_COLUMNS, ACCESS_CLIENT_COLUMNS);
const selectRefreshToken = selectPresentedBy('t.refresh_token_hash', PAIR_COLUMNS, CLIENT_COLUMNS);

/** The owner and the owner's roles (one row per role) of a presented token. */
function ownerFrom(rows: JoinedRow[]): Pick<PresentedAccessToken, 'user' | 'roles'> {
  const first = rows[0] as JoinedRow;
  return {
    user: first.owner__id === null ? null : userFromRow(unaliased<UserRow>(first, USER_COLUMNS)),
    roles: rows
      .map((row) => row.role)
      .filter((role): role is string => role !== null)
      .sort()
      .map(parseRole),
  };
}

/** A presented access token in one round trip: what userinfo, the member API, /mcp and the admin API verify. */
export async function readAccessToken(db: Database, token: string): Promise<PresentedAccessToken | null> {
  const rows = await selectAccessToken(db, tokenKey(token));
  const row = rows[0];
  if (!row) return null;
  const { user, roles } = ownerFrom(rows);
  return {
    user,
    roles,
    pair: accessPairFromRow(row),
    client: { ref: row.client__id as number, clientId: row.client__client_id as string, audience: audienceOf(row.client__audience), kind: row.client__kind as ClientKind },
  };
}

/** A presented refresh token with its whole pair and client (and secret hash) in one round trip. */
export async function readRefreshToken(db: Database, token: string): Promise<PresentedRefreshToken | null> {
  const rows = await selectRefreshToken(db, tokenKey(token));
  const row = rows[0];
  if (!row) return null;
  const { user, roles } = ownerFrom(rows);
  return {
    user,
    roles,
    pair: pairFromRow(row),
    client: clientFromRow(unaliased<ClientRow>(row, CLIENT_COLUMNS)),
    clientSecretHash: (row.client__secret_hash as string | null | undefined) ?? null,
  };
}
