import { revokeApplicationTokens } from '../../../clients/applications.js';
import type { AdminHandler } from '../../api/types.js';

/** POST /oauth-applications/{clientId}/revoke-tokens (school:write): every live token of the application stops at once. */
export const revokeOAuthApplicationTokens: AdminHandler<'revokeOAuthApplicationTokens'> = async ({ db, site, path, log }) => {
  const { application, revokedPairs } = await revokeApplicationTokens(db, site.id, path.clientId);
  log.info({ event: 'oauth_application_tokens_revoked', clientRef: application.client.ref, revokedPairs }, 'OAuth application tokens revoked');
  return { status: 200, body: { revokedTokenPairs: revokedPairs } };
};
