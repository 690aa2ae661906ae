import type { OAuthClient } from '../../clients/clients.js';
import type { Site } from '../../sites/sites.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../tokens/lifetimes.js';
import type { IssuedPair } from '../tokens/store.js';
import type { VariantProfile } from '../../variant.js';

/** The token endpoint's JSON (spec: Token response). */
export interface TokenResponse {
  access_token: string;
  /** RFC 9449 5: `DPoP` for a pair bound to the proof's key. */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  /** Absent for client_credentials (RFC 6749 4.4.3). */
  refresh_token?: string;
  scope: string;
  id_token?: string;
  school_id?: number;
  school_subdomain?: string;
  created_at?: number;
}

/**
 * Where member tokens are school-bound, they also carry `school_id`, `school_subdomain` and `created_at`. A refreshed pair carries the
 * `school_id` it was issued with, so a pair issued without one stays without (Authentication 8).
 */
export function tokenResponse(issued: IssuedPair, context: { site: Site; client: OAuthClient; variant: VariantProfile; idToken?: string }): TokenResponse {
  const { pair } = issued;
  const body: TokenResponse = {
    access_token: issued.accessToken,
    token_type: pair.dpopJkt === null ? 'Bearer' : 'DPoP',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    scope: pair.scopes.join(' '),
  };
  if (issued.refreshToken !== null) body.refresh_token = issued.refreshToken;
  if (context.idToken !== undefined) body.id_token = context.idToken;
  if (context.variant.schoolBoundMemberTokens && context.client.audience === 'member' && pair.schoolId !== null) {
    body.school_id = pair.schoolId;
    body.school_subdomain = context.site.subdomain;
    body.created_at = Math.floor(pair.createdAt.getTime() / 1000);
  }
  return body;
}
