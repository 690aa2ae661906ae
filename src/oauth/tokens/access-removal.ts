import { rolesAt } from '../../accounts/roles.js';
import type { Database } from '../../db/connection.js';
import { permittedAudiences } from '../authorization-policy.js';
import { revocation } from './store.js';

/**
 * Call after changing a member's roles at a site, in the same transaction: revokes, in one statement, every live pair
 * the member holds there for a client their remaining roles no longer permit (all of them once no role is left), so a
 * removed member's access tokens stop at once instead of living out their two hours.
 */
export async function revokeTokensNoLongerPermitted(trx: Database, siteId: number, userId: number, now = new Date()): Promise<number> {
  const audiences = permittedAudiences(await rolesAt(trx, siteId, userId));
  if (audiences.includes('member') && audiences.includes('operator')) return 0;
  const pairs = trx('token_pairs').where({ site_id: siteId, user_id: userId }).whereNull('revoked_at');
  if (audiences.length > 0) pairs.whereIn('client_ref', trx('oauth_clients').where({ site_id: siteId }).whereNotIn('audience', audiences).select('id'));
  return pairs.update(revocation('access_removed', now));
}
