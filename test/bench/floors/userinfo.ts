import { tokenKey } from '../../../src/oauth/tokens/token-keys.js';
import { answer, bearerOf, toDate, type Floor } from './answer.js';
import { siteOf } from './site.js';
import { statementOf } from './statements.js';

const variant = process.env.SCHOOLGATE_VARIANT ?? 'A';

/**
 * Floor C, userinfo: the site from a 5 s cache, then the product's one statement for the token with its client, owner
 * (and the owner's name at the site) and roles; the route checks what the product checks (the token's site and
 * origin binding, revocation, expiry, a resource owner, openid) and answers the same claims.
 */
export const userinfoFloor: Floor = async ({ headers, store, book }) => {
  const site = await siteOf(store, book);
  const values = [tokenKey(bearerOf(headers))];
  const rows = await store.all(statementOf(book, 'userinfo.token', values), values);
  const first = rows[0];
  if (!site || !first || first.site_id !== site.id || first.resource !== site.origin || first.revoked_at !== null || (toDate(first.access_expires_at)?.getTime() ?? 0) <= Date.now() || first.owner__id === null) {
    return answer(401, { error: 'invalid_token' });
  }
  const scopes = String(first.scope).split(' ');
  if (!scopes.includes('openid')) return answer(403, { error: 'insufficient_scope' });
  const roles = rows
    .map((row) => row.role)
    .filter((role): role is string => typeof role === 'string')
    .sort();
  const claims: Record<string, unknown> = { sub: String(first.owner__id), org_id: String(first.site_id), roles };
  if (scopes.includes('email')) claims.email = first.owner__email;
  if (scopes.includes('profile')) {
    claims.name = first.owner__name;
    if (variant === 'A') claims.picture = first.owner__avatar_url;
  }
  return answer(200, claims);
};
