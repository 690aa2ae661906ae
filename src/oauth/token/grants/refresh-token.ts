import type { Role } from '../../../accounts/roles.js';
import type { Database } from '../../../db/connection.js';
import { requireParam } from '../../parameters.js';
import { rolesPermitClient } from '../../../grants/authorization-policy.js';
import { InvalidGrantError } from '../../errors.js';
import { narrowScopes } from '../../scope-policy.js';
import { requireBoundKey } from '../../dpop/token-request.js';
import { rotatePair } from '../../tokens/rotation.js';
import { endGrants } from '../../../grants/end-grant.js';
import type { RevokedReason } from '../../../grants/revocation.js';
import type { TokenPair } from '../../tokens/store.js';
import { readRefreshToken, type PresentedRefreshToken } from '../../tokens/verification.js';
import { tokenResponse, type TokenResponse } from '../token-response.js';
import type { GrantContext } from './context.js';

/**
 * grant_type=refresh_token (RFC 6749 6) with the rotation rules of the spec's Token pair table: the old pair stays
 * live until the new access token is first presented to an API, so a lost response can be retried with the old
 * refresh token; a refresh token presented after its successor was received is reuse and ends the whole grant
 * (RFC 9700 4.14.2). Never an id_token (Authentication 11).
 */
export async function refreshTokenGrant(context: GrantContext): Promise<TokenResponse> {
  const { pair, roles } = await loadPair(context, requireParam(context.form, 'refresh_token'));
  checkPairBelongsToClient(context, pair);
  if (pair.revokedAt !== null) await refuseRevoked(context, pair, pair.revokedReason ?? 'revoked');
  checkRefreshNotExpired(pair);
  checkUserStillMayAuthorize(context, pair, roles);
  const scopes = narrowScopes(pair.scopes, context.form.get('scope'));
  checkDpopBinding(context, pair);
  const outcome = await rotatePair(context.services.db, pair, scopes, context.dpopJkt);
  if (outcome.kind === 'refused') throw refusal(outcome.reason);
  return tokenResponse(outcome.issued, { site: context.site, client: context.client, variant: context.services.variant });
}

/**
 * The presented refresh token with its client and its owner's roles, in one statement; the token endpoint reads it
 * before authenticating the client, which then needs no statement of its own.
 */
export async function prefetchRefreshToken(db: Database, form: Map<string, string>): Promise<PresentedRefreshToken | null> {
  const refreshToken = form.get('refresh_token');
  return refreshToken === undefined ? null : readRefreshToken(db, refreshToken);
}

async function loadPair({ services, site, presented: prefetched }: GrantContext, refreshToken: string): Promise<PresentedRefreshToken> {
  const presented = prefetched === undefined ? await readRefreshToken(services.db, refreshToken) : prefetched;
  if (!presented || presented.pair.siteId !== site.id) throw new InvalidGrantError('the refresh token is not recognised at this site');
  return presented;
}

function checkPairBelongsToClient({ client }: GrantContext, pair: TokenPair): void {
  if (pair.clientRef !== client.ref) throw new InvalidGrantError('the refresh token was issued to another client');
}

/** A revoked refresh token; one that was rotated (its successor received) coming back is reuse: the grant ends. */
async function refuseRevoked({ services }: GrantContext, pair: TokenPair, reason: RevokedReason): Promise<never> {
  if (reason === 'rotated') await endGrants(services.db, pair.siteId, [pair.grantId], 'reuse_detected');
  throw refusal(reason);
}

const REFUSALS: Record<RevokedReason, string> = {
  rotated: 'the refresh token was already rotated and its successor used; reusing it revoked every token of this authorization: authorize again',
  superseded: 'the refresh token was superseded by a later refresh of the same token; use the newest refresh token',
  revoked: 'the refresh token has been revoked',
  reuse_detected: 'the refresh token was revoked because a rotated refresh token of the same authorization was reused: authorize again',
  code_replayed: 'the refresh token was revoked because its authorization code was presented twice: authorize again',
  access_removed: 'the refresh token was revoked because the member no longer holds a role that may use this client',
};

function refusal(reason: RevokedReason): InvalidGrantError {
  return new InvalidGrantError(REFUSALS[reason]);
}

/**
 * RFC 9449 5: a public client's refresh token is bound to the key of the proof it was issued with, for the whole
 * family; a confidential client's is not (it authenticates), but its new access token is bound to this proof's key.
 */
function checkDpopBinding({ client, dpopJkt }: GrantContext, pair: TokenPair): void {
  if (!client.confidential) requireBoundKey(pair.dpopJkt, dpopJkt, 'the refresh token');
}

function checkRefreshNotExpired(pair: TokenPair): void {
  if (pair.refreshExpiresAt !== null && pair.refreshExpiresAt.getTime() <= Date.now()) throw new InvalidGrantError('the refresh token has expired; authorize again');
}

function checkUserStillMayAuthorize({ client }: GrantContext, pair: TokenPair, roles: readonly Role[]): void {
  if (pair.userId === null) return;
  if (!rolesPermitClient(roles, client)) throw new InvalidGrantError('the member no longer holds a role that may use this client');
}
