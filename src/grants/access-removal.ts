import { rolesAt } from '../accounts/roles.js';
import type { Database } from '../db/connection.js';
import { permittedAudiences } from './authorization-policy.js';
import { endGrantsWhere } from './end-grant.js';

/**
 * Call after changing a member's roles at a site, in the same transaction: revokes, in one statement, every live pair
 * the member holds there for a client their remaining roles no longer permit (all of them once no role is left), so a
 * removed member's access tokens stop at once instead of living out their two hours. Their clients get the
 * back-channel logout notice (OIDC Back-Channel Logout 1.0 2.5).
 */
export async function revokeTokensNoLongerPermitted(trx: Database, siteId: number, userId: number, now = new Date()): Promise<number> {
  const audiences = permittedAudiences(await rolesAt(trx, siteId, userId));
  if (audiences.includes('member') && audiences.includes('operator')) return 0;
  return endGrantsWhere(
    trx,
    siteId,
    (pairs) => {
      pairs.where({ user_id: userId });
      if (audiences.length > 0) pairs.whereIn('client_ref', trx('oauth_clients').where({ site_id: siteId }).whereNotIn('audience', audiences).select('id'));
    },
    'access_removed',
    now,
  );
}
