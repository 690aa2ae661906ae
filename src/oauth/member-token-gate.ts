import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';
import type { VariantProfile } from '../variant.js';
import { accessCredentialsOf, requireAccessCredentials, verifyAccessToken, type ResourceRequest, type VerifiedToken } from './bearer.js';
import { InvalidTokenError } from './errors.js';

/**
 * The one gate in front of the member resources, the member GraphQL API and /mcp (spec, Authentication 7-9): the
 * access token verified by the one verifier (src/oauth/bearer.ts), then held to the member rules of the deployment.
 * What it refuses is an InvalidTokenError (401 invalid_token with WWW-Authenticate), or what the verifier throws; each
 * interface renders that in its own format.
 */
export interface MemberTokenRules {
  /** A request without an Authorization header: refused (401 invalid_token), or let through as anonymous (null). */
  anonymous: 'refuse' | 'allow';
  /** A valid token with no resource owner: refused (401 invalid_token) with this description, or null to let it through. */
  ownerlessRefusal: string | null;
}

interface GateServices {
  db: Database;
  variant: VariantProfile;
}

/**
 * Where the deployment binds member tokens to a school (`schoolBoundMemberTokens`), a member token without this
 * site's `school_id` (spec: Token response) is "refused as issued for a different organization" (Authentication 8).
 */
function requireSchoolBinding(site: Site, verified: VerifiedToken): void {
  if (verified.client.audience === 'member' && verified.pair.schoolId !== site.id) {
    throw new InvalidTokenError(site.origin, 'the access token was issued for a different organization (it has no school_id for this site); re-run the authorization-code flow to get one');
  }
}

/** A verified member token, with the token as presented (the MCP transport hands it on). */
export interface MemberToken extends VerifiedToken {
  token: string;
}

/** Verifies the request's member token: the verified token, or null for an anonymous request the rules allow. */
export async function passMemberTokenGate(services: GateServices, site: Site, request: ResourceRequest, rules: MemberTokenRules & { anonymous: 'refuse' }): Promise<MemberToken>;
export async function passMemberTokenGate(services: GateServices, site: Site, request: ResourceRequest, rules: MemberTokenRules): Promise<MemberToken | null>;
export async function passMemberTokenGate(services: GateServices, site: Site, request: ResourceRequest, rules: MemberTokenRules): Promise<MemberToken | null> {
  const credentials = rules.anonymous === 'refuse' ? requireAccessCredentials(site, request.authorization) : accessCredentialsOf(site, request.authorization);
  if (credentials === null) return null;
  const verified = await verifyAccessToken(services.db, site, credentials, request);
  if (verified.userId === null && rules.ownerlessRefusal !== null) throw new InvalidTokenError(site.origin, rules.ownerlessRefusal);
  if (services.variant.schoolBoundMemberTokens) requireSchoolBinding(site, verified);
  return Object.assign(verified, { token: credentials.token });
}
