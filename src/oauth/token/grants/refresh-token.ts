import { rolesAt } from '../../../accounts/roles.js';
import { requireParam } from '../../../http/form.js';
import { rolesPermitClient } from '../../authorization-policy.js';
import { InvalidGrantError } from '../../errors.js';
import { narrowScopes } from '../../scope-policy.js';
import { findPairByRefreshToken, rotatePair, type TokenPair } from '../../tokens/store.js';
import { tokenResponse, type TokenResponse } from '../token-response.js';
import type { GrantContext } from './context.js';

/**
 * grant_type=refresh_token (RFC 6749 6) with the rotation rules of the spec's Token pair table: the old pair stays
 * live until the new access token is first presented to an API, so a lost response can be retried with the old
 * refresh token. Never an id_token (Authentication 11).
 */
export async function refreshTokenGrant(context: GrantContext): Promise<TokenResponse> {
  const pair = await loadPair(context, requireParam(context.form, 'refresh_token'));
  checkPairBelongsToClient(context, pair);
  checkPairLive(pair);
  await checkUserStillMayAuthorize(context, pair);
  const scopes = narrowScopes(pair.scopes, context.form.get('scope'));
  const outcome = await rotatePair(context.services.db, pair, scopes);
  if (outcome.kind === 'conflict') throw new InvalidGrantError('this refresh token was just used by a concurrent request; retry with the same refresh token');
  return tokenResponse(outcome.issued, { site: context.site, client: context.client, variant: context.services.config.variant });
}

async function loadPair({ services, site }: GrantContext, refreshToken: string): Promise<TokenPair> {
  const pair = await findPairByRefreshToken(services.db, refreshToken);
  if (!pair || pair.siteId !== site.id) throw new InvalidGrantError('the refresh token is not recognised at this site');
  return pair;
}

function checkPairBelongsToClient({ client }: GrantContext, pair: TokenPair): void {
  if (pair.clientRef !== client.ref) throw new InvalidGrantError('the refresh token was issued to another client');
}

function checkPairLive(pair: TokenPair): void {
  if (pair.revokedAt !== null) throw new InvalidGrantError('the refresh token has been revoked (or superseded once its successor was used)');
  if (pair.refreshExpiresAt !== null && pair.refreshExpiresAt.getTime() <= Date.now()) throw new InvalidGrantError('the refresh token has expired; authorize again');
}

async function checkUserStillMayAuthorize({ services, site, client }: GrantContext, pair: TokenPair): Promise<void> {
  if (pair.userId === null) return;
  if (!rolesPermitClient(await rolesAt(services.db, site.id, pair.userId), client)) throw new InvalidGrantError('the member no longer holds a role that may use this client');
}
