import { parseRole, type Role } from '../../accounts/roles.js';
import { userFromRow, type User } from '../../accounts/users.js';
import { clientFromRow, type ClientRow, type OAuthClient } from '../../clients/clients.js';
import { compiledSelect } from '../../db/compiled-select.js';
import type { Database } from '../../db/connection.js';
import { sha256Hex } from '../../shared/random.js';
import { pairFromRow, type PairRow, type TokenPair } from './store.js';

/** Everything a protected resource needs about a presented access token, read together. */
export interface PresentedToken {
  pair: TokenPair;
  client: OAuthClient;
  /** The client's secret hash (confidential clients), so the token endpoint can authenticate it from this read. */
  clientSecretHash: string | null;
  /** The resource owner's account; null for a token with no resource owner. */
  user: User | null;
  /** The owner's roles at the token's site, sorted. */
  roles: Role[];
}

const CLIENT_COLUMNS: ReadonlyArray<keyof ClientRow> = ['id', 'site_id', 'client_id', 'client_id_hash', 'name', 'audience', 'confidential', 'token_endpoint_auth_method', 'secret_hash', 'redirect_uris', 'scopes', 'kind', 'reviewed', 'version', 'created_at', 'updated_at'];
const USER_COLUMNS = ['id', 'email', 'name', 'avatar_url', 'created_at'] as const;
type UserRow = Parameters<typeof userFromRow>[0];

type JoinedRow = PairRow & { role: string | null } & Record<string, unknown>;

/** The columns of one joined table, read back from their `prefix__column` aliases. */
function unprefixed<Row>(row: JoinedRow, prefix: string, columns: readonly string[]): Row {
  const picked: Record<string, unknown> = {};
  for (const column of columns) picked[column] = row[`${prefix}__${column}`];
  return picked as Row;
}

/** The read of a presented token by the hash of one of its two tokens, compiled once (a hot path). */
function selectPresentedBy(hashColumn: 't.access_token_hash' | 't.refresh_token_hash') {
  return compiledSelect<JoinedRow, [string]>((db, tokenHash) =>
    db('token_pairs as t')
      .join('oauth_clients as c', 'c.id', 't.client_ref')
      .leftJoin('users as u', 'u.id', 't.user_id')
      .leftJoin('site_roles as r', (on) => on.on('r.site_id', 't.site_id').andOn('r.user_id', 't.user_id'))
      .where(hashColumn, tokenHash)
      .select('t.*', ...CLIENT_COLUMNS.map((column) => `c.${column} as client__${column}`), ...USER_COLUMNS.map((column) => `u.${column} as owner__${column}`), 'r.role'),
  );
}
const SELECT_PRESENTED = { access_token: selectPresentedBy('t.access_token_hash'), refresh_token: selectPresentedBy('t.refresh_token_hash') };

/**
 * One statement for a presented token: its pair, client, owner and the owner's roles at the site (one row per role),
 * so verifying an access token and answering userinfo, or checking a refresh token, cost one round trip. Nothing is
 * cached: a revoked token is refused by every instance on its next presentation.
 */
export async function readPresentedToken(db: Database, kind: 'access_token' | 'refresh_token', token: string): Promise<PresentedToken | null> {
  const rows = await SELECT_PRESENTED[kind](db, sha256Hex(token));
  const first = rows[0];
  if (!first) return null;
  return {
    pair: pairFromRow(first),
    client: clientFromRow(unprefixed<ClientRow>(first, 'client', CLIENT_COLUMNS)),
    clientSecretHash: (first.client__secret_hash as string | null | undefined) ?? null,
    user: first.owner__id === null ? null : userFromRow(unprefixed<UserRow>(first, 'owner', USER_COLUMNS)),
    roles: rows
      .map((row) => row.role)
      .filter((role): role is string => role !== null)
      .sort()
      .map(parseRole),
  };
}
