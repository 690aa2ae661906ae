/** Every OAuth/OIDC path of a site, in one place; discovery documents and pages build URLs from these. */
export const OAUTH_PATHS = {
  protectedResourceMetadata: '/.well-known/oauth-protected-resource',
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
  jwks: '/.well-known/jwks.json',
  authorize: '/oauth/authorize',
  /** OIDC RP-Initiated Logout 1.0 2: browser-facing, like the authorization endpoint. */
  endSession: '/oauth/logout',
  token: '/api/oauth/token',
  userinfo: '/api/oauth/userinfo',
  revoke: '/api/oauth/revoke',
  register: '/api/oauth/register',
  introspect: '/api/oauth/introspect',
} as const;

/** Where every token-side endpoint (token, userinfo, revocation, registration, introspection) lives. */
export const OAUTH_API_PREFIX = '/api/oauth/';

/** `{base_url}{path}` for a site. */
export function siteUrl(origin: string, path: string): string {
  return `${origin}${path}`;
}
