import type { FieldProblem } from '../shared/errors.js';
import { asClientJwks, validateClientKeys } from './client-keys.js';
import { TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from './auth-methods.js';
import type { ClientJwks, ClientKind, OAuthClient } from './client.js';
import { isLoopbackHost, redirectUriProblem } from './redirect-uris.js';

/**
 * A client's authentication and logout settings beside its scopes and redirect URIs: how it authenticates at the
 * token endpoint (RFC 6749 2.3, OIDC Core 9), its keys for private_key_jwt (RFC 7523), whether its access tokens must
 * be DPoP-bound (RFC 9449 5.2) and where logout sends members back or notifies it (OIDC RP-Initiated Logout 1.0 3.1,
 * Back-Channel Logout 1.0 2.2). Shared by the admin API, the CLI and the admin area; rules in docs/admin-api.md.
 */
export interface ClientSettings {
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  jwks: ClientJwks | null;
  jwksUri: string | null;
  dpopBoundAccessTokens: boolean;
  postLogoutRedirectUris: readonly string[];
  backchannelLogoutUri: string | null;
}

/** What a create or a merge patch gives; `undefined` keeps the current (or default) value. `jwks` is still unchecked. */
export type ClientSettingsInput = { [K in Exclude<keyof ClientSettings, 'jwks'>]?: ClientSettings[K] | undefined } & { jwks?: unknown };

/** Settings about to be checked: `jwks` as given. */
export type MergedSettings = Omit<ClientSettings, 'jwks'> & { jwks: unknown };

const MAX_POST_LOGOUT_REDIRECT_URIS = 20;
const MAX_URI_LENGTH = 2048;

/** The default method: `none` for a public client, `client_secret_post` for a confidential one (the checkbox). */
export function defaultAuthMethod(confidential: boolean): TokenEndpointAuthMethod {
  return confidential ? 'client_secret_post' : 'none';
}

export function defaultSettings(confidential: boolean): ClientSettings {
  return {
  tokenEndpointAuthMethod: defaultAuthMethod(confidential),
  jwks: null,
  jwksUri: null,
  dpopBoundAccessTokens: false,
  postLogoutRedirectUris: [],
  backchannelLogoutUri: null,
  };
}

export function settingsOf(client: OAuthClient): ClientSettings {
  const { tokenEndpointAuthMethod, jwks, jwksUri, dpopBoundAccessTokens, postLogoutRedirectUris, backchannelLogoutUri } = client;
  return { tokenEndpointAuthMethod, jwks, jwksUri, dpopBoundAccessTokens, postLogoutRedirectUris, backchannelLogoutUri };
}

/**
 * The settings after `input` is applied to `current`. Moving away from private_key_jwt drops the registered keys
 * unless the input names them (they would be refused for any other method), so switching methods is one change.
 */
export function mergeSettings(current: ClientSettings, input: ClientSettingsInput): MergedSettings {
  const method = input.tokenEndpointAuthMethod ?? current.tokenEndpointAuthMethod;
  const leavesKeys = method !== 'private_key_jwt' && current.tokenEndpointAuthMethod === 'private_key_jwt';
  return {
    tokenEndpointAuthMethod: method,
    jwks: input.jwks !== undefined ? input.jwks : leavesKeys ? null : current.jwks,
    jwksUri: input.jwksUri !== undefined ? input.jwksUri : leavesKeys ? null : current.jwksUri,
    dpopBoundAccessTokens: input.dpopBoundAccessTokens ?? current.dpopBoundAccessTokens,
    postLogoutRedirectUris: input.postLogoutRedirectUris ?? current.postLogoutRedirectUris,
    backchannelLogoutUri: input.backchannelLogoutUri !== undefined ? input.backchannelLogoutUri : current.backchannelLogoutUri,
  };
}

/** OIDC Back-Channel Logout 1.0 2.2: an absolute URL without a fragment; https, or http on a loopback host for development. */
export function backchannelLogoutUriProblem(value: string): string | null {
  if (value.length > MAX_URI_LENGTH) return `must be at most ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash !== '' || value.includes('#')) return 'must not contain a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? null : 'http is allowed only for loopback hosts; use https';
  return 'must use https (or http on a loopback host)';
}

/**
 * Every problem of merged settings for a client of this kind, at the admin API's field names:
 * - a public client authenticates with `none` only, a confidential one with a secret or a key (never `none`);
 * - keys go with private_key_jwt only (validateClientKeys);
 * - post-logout redirect URIs follow the redirect-URI rules (exact, absolute, no fragment; http only on loopback);
 * - a service client has no member sessions, so it registers neither logout address.
 */
export function settingsProblems(settings: MergedSettings, client: { confidential: boolean; kind: ClientKind }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const method = settings.tokenEndpointAuthMethod;
  if (!(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method)) {
    problems.push({ pointer: '/tokenEndpointAuthMethod', message: `must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}` });
  } else if (client.confidential && method === 'none') {
    problems.push({ pointer: '/tokenEndpointAuthMethod', message: 'a confidential application authenticates with client_secret_post, client_secret_basic or private_key_jwt, never none' });
  } else if (!client.confidential && method !== 'none') {
    problems.push({ pointer: '/tokenEndpointAuthMethod', message: `a public application has no secret or keys: its method is none (create a confidential application for ${method})` });
  } else {
    problems.push(...validateClientKeys({ method, jwks: settings.jwks, jwksUri: settings.jwksUri }));
  }
  if (settings.postLogoutRedirectUris.length > MAX_POST_LOGOUT_REDIRECT_URIS) {
    problems.push({ pointer: '/postLogoutRedirectUris', message: `at most ${MAX_POST_LOGOUT_REDIRECT_URIS} addresses` });
  }
  settings.postLogoutRedirectUris.forEach((uri, index) => {
    const message = uri.length > MAX_URI_LENGTH ? `must be at most ${MAX_URI_LENGTH} characters` : redirectUriProblem(uri);
    if (message) problems.push({ pointer: `/postLogoutRedirectUris/${index}`, message });
  });
  if (settings.backchannelLogoutUri !== null) {
    const message = backchannelLogoutUriProblem(settings.backchannelLogoutUri);
    if (message) problems.push({ pointer: '/backchannelLogoutUri', message });
  }
  if (client.kind === 'service') {
    if (settings.postLogoutRedirectUris.length > 0) problems.push({ pointer: '/postLogoutRedirectUris', message: 'a service client signs no member in, so it has no post-logout redirect URIs' });
    if (settings.backchannelLogoutUri !== null) problems.push({ pointer: '/backchannelLogoutUri', message: 'a service client signs no member in, so it gets no logout tokens' });
  }
  return problems;
}

/** The oauth_clients columns of valid settings. */
export function settingsColumns(settings: MergedSettings): Record<string, unknown> {
  return {
    token_endpoint_auth_method: settings.tokenEndpointAuthMethod,
    jwks: settings.jwks === null || settings.jwks === undefined ? null : JSON.stringify(asClientJwks(settings.jwks)),
    jwks_uri: settings.jwksUri,
    dpop_bound_access_tokens: settings.dpopBoundAccessTokens,
    post_logout_redirect_uris: settings.postLogoutRedirectUris.length === 0 ? null : JSON.stringify(settings.postLogoutRedirectUris),
    backchannel_logout_uri: settings.backchannelLogoutUri,
  };
}

/** Whether a client's settings differ (a patch that changes nothing bumps no version). */
export function sameSettings(a: MergedSettings, b: ClientSettings): boolean {
  return (
    a.tokenEndpointAuthMethod === b.tokenEndpointAuthMethod &&
    JSON.stringify(a.jwks ?? null) === JSON.stringify(b.jwks) &&
    a.jwksUri === b.jwksUri &&
    a.dpopBoundAccessTokens === b.dpopBoundAccessTokens &&
    JSON.stringify(a.postLogoutRedirectUris) === JSON.stringify(b.postLogoutRedirectUris) &&
    a.backchannelLogoutUri === b.backchannelLogoutUri
  );
}
