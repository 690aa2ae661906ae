import { rolesAt } from '../../../accounts/roles.js';
import { rolesPermitClient } from '../../../grants/authorization-policy.js';
import { findAuthorizationCode, type AuthorizationCodeRecord } from '../../codes.js';
import { InvalidGrantError, InvalidRequestError, InvalidTargetError } from '../../errors.js';
import { requireBoundKey } from '../../dpop/token-request.js';
import { idTokenSigner } from '../../id-token.js';
import { PKCE_VALUE, verifierMatchesChallenge } from '../../pkce.js';
import { CompiledStatement } from '../../../db/direct-statements.js';
import { withDirectTransaction } from '../../../db/direct-transaction.js';
import { endGrants } from '../../../grants/end-grant.js';
import { insertPairIn, type IssuedPair } from '../../tokens/store.js';
import { userClaims } from '../../user-claims.js';
import { requireParam } from '../../parameters.js';
import { tokenResponse, type TokenResponse } from '../token-response.js';
import type { GrantContext } from './context.js';

/**
 * grant_type=authorization_code (RFC 6749 4.1.3, RFC 7636 4.6, RFC 8707 2.2). Each step below is one check of the
 * exchange; any failure is invalid_grant unless it names another error.
 */
export async function authorizationCodeGrant(context: GrantContext): Promise<TokenResponse> {
  const request = readExchangeRequest(context);
  const code = await loadCode(context, request.code);
  checkCodeBelongsToClient(context, code);
  if (code.consumedAt !== null) await refuseReplay(context, code);
  checkCodeNotExpired(code);
  checkRedirectUri(code, request.redirectUri);
  checkResource(context, code, request.resource);
  checkPkce(code, request.codeVerifier);
  // RFC 9449 10: a code requested with dpop_jkt is redeemed only with a proof of that key.
  requireBoundKey(code.dpopJkt, context.dpopJkt, 'the authorization code');
  await checkUserStillMayAuthorize(context, code);
  const { issued, idToken } = await consumeCodeAndIssuePair(context, code);
  return tokenResponse(issued, { site: context.site, client: context.client, variant: context.services.variant, idToken });
}

function readExchangeRequest({ form }: GrantContext) {
  const codeVerifier = requireParam(form, 'code_verifier');
  if (!PKCE_VALUE.test(codeVerifier)) throw new InvalidRequestError('code_verifier must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1)');
  return {
    code: requireParam(form, 'code'),
    redirectUri: requireParam(form, 'redirect_uri'),
    // Spec, Authentication 7: resource is sent at the token endpoint too.
    resource: requireParam(form, 'resource'),
    codeVerifier,
  };
}

async function loadCode({ services, site }: GrantContext, code: string): Promise<AuthorizationCodeRecord> {
  const record = await findAuthorizationCode(services.db, site.id, code);
  if (!record) throw new InvalidGrantError('the authorization code is not recognised at this site');
  return record;
}

function checkCodeBelongsToClient({ client }: GrantContext, code: AuthorizationCodeRecord): void {
  if (code.clientRef !== client.ref) throw new InvalidGrantError('the authorization code was issued to another client');
}

function checkCodeNotExpired(code: AuthorizationCodeRecord): void {
  if (code.expiresAt.getTime() <= Date.now()) throw new InvalidGrantError('the authorization code has expired; authorize again');
}

function checkRedirectUri(code: AuthorizationCodeRecord, redirectUri: string): void {
  if (redirectUri !== code.redirectUri) throw new InvalidGrantError('redirect_uri differs from the one of the authorization request');
}

function checkResource({ site }: GrantContext, code: AuthorizationCodeRecord, resource: string): void {
  if (resource !== site.origin || resource !== code.resource) throw new InvalidTargetError(`resource must be ${site.origin}, as at the authorization endpoint`);
}

function checkPkce(code: AuthorizationCodeRecord, verifier: string): void {
  if (!verifierMatchesChallenge(verifier, code.codeChallenge)) throw new InvalidGrantError('code_verifier does not match the code_challenge');
}

async function checkUserStillMayAuthorize({ services, site, client }: GrantContext, code: AuthorizationCodeRecord): Promise<void> {
  if (!rolesPermitClient(await rolesAt(services.db, site.id, code.userId), client)) throw new InvalidGrantError('the member no longer holds a role that may use this client');
}

/** The compare-and-set that claims a code, compiled once per dialect. */
const CLAIM_CODE = new CompiledStatement<[Date, number]>((db, now, id) => db('authorization_codes').where({ id }).whereNull('consumed_at').update({ consumed_at: now }));

/**
 * Single use: the code is claimed with a compare-and-set in the same transaction that mints the pair, and the
 * id_token is signed before that transaction commits, so a failure anywhere leaves the code unused for a retry. A
 * replay finds the code claimed and revokes what it issued (RFC 6749 4.1.2, 10.5).
 */
async function consumeCodeAndIssuePair(context: GrantContext, code: AuthorizationCodeRecord): Promise<{ issued: IssuedPair; idToken: string | undefined }> {
  const { services, site, client } = context;
  const signIdToken = await prepareIdToken(context, code);
  const result = await withDirectTransaction(services.db, async (tx) => {
    const now = new Date();
    const { changes: claimed } = await tx.write(CLAIM_CODE, [now, code.id]);
    if (claimed === 0) return null;
    const issued = await insertPairIn(
      tx,
      {
        grantId: code.grantId,
        siteId: site.id,
        clientRef: client.ref,
        userId: code.userId,
        scopes: code.scopes,
        resource: code.resource,
        // School-bound deployments: member tokens carry the id of the site they are bound to (spec: Token response).
        schoolId: services.variant.schoolBoundMemberTokens && client.audience === 'member' ? site.id : null,
        authTime: code.authTime,
        sid: code.sid,
        dpopJkt: context.dpopJkt,
      },
      now,
    );
    return { issued, idToken: await signIdToken?.(now) };
  });
  if (result) return result;
  return refuseReplay(context, code);
}

/** A code presented a second time: revoke every pair of its grant, then refuse (RFC 6749 4.1.2). */
async function refuseReplay({ services, site }: GrantContext, code: AuthorizationCodeRecord): Promise<never> {
  await endGrants(services.db, site.id, [code.grantId], 'code_replayed');
  throw new InvalidGrantError('the authorization code was already used; the tokens it issued are revoked');
}

/** Only on this exchange, only with `openid` (spec: Token response); never on refresh. Claims and key are read up front. */
async function prepareIdToken({ services, site, client }: GrantContext, code: AuthorizationCodeRecord): Promise<((now: Date) => Promise<string>) | undefined> {
  if (!code.scopes.includes('openid')) return undefined;
  const [claims, sign] = await Promise.all([userClaims(services.db, site, code.userId, code.scopes, services.variant), idTokenSigner(services.db, site.id)]);
  return (now) => sign({ site, clientId: client.clientId, claims, nonce: code.nonce, authTime: code.authTime, sid: code.sid }, now);
}
