import { cspSourceForUri } from '../../http/security-headers.js';
import { ConsentRequiredError, InvalidRequestError, InvalidTargetError, OAuthError, RequestNotSupportedError, RequestUriNotSupportedError, UnsupportedResponseTypeError } from '../errors.js';
import { readQuery } from '../parameters.js';
import { resolvePageClient } from './page-client.js';
import { resolveRequestedScopes } from '../scope-policy.js';
import { UntrustedRequestError } from './errors.js';
import { need, type AuthorizeFlow } from './flow.js';
import { step } from './pipeline.js';

/** The checks of GET /oauth/authorize, in the order RFC 6749 4.1.2.1 needs: client and redirect_uri first. */

/** RFC 7636 4.1: 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
const CODE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
const DPOP_JKT = /^[A-Za-z0-9_-]{43}$/;
/** The authorization_codes.nonce column. */
const MAX_NONCE_LENGTH = 255;

function clip(value: string, length = 200): string {
  return value.length > length ? `${value.slice(0, length)}…` : value;
}

/**
 * RFC 6749 3.1: each parameter at most once. A duplicate is reported only after client and redirect_uri are verified
 * (then it is an invalid_request redirect); until then the parameters given once are used.
 */
export const readAuthorizationQuery = step<AuthorizeFlow>('read the query, each parameter once', (flow) => {
  const querystring = flow.ctx.querystring;
  try {
    flow.query = readQuery(querystring);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    const counts = new Map<string, number>();
    for (const [name] of new URLSearchParams(querystring)) counts.set(name, (counts.get(name) ?? 0) + 1);
    flow.duplicatedParameters = [...counts].filter(([, count]) => count > 1).map(([name]) => name);
    flow.query = new Map([...new URLSearchParams(querystring)].filter(([name, value]) => counts.get(name) === 1 && value !== ''));
  }
});

function duplicated(flow: AuthorizeFlow, name: string): boolean {
  return flow.duplicatedParameters?.includes(name) ?? false;
}

/** RFC 6749 4.1.2.1: an unknown or missing client_id is shown, never redirected. */
export const identifyClient = step<AuthorizeFlow>('identify the client', async (flow) => {
  const clientId = need(flow, 'query').get('client_id');
  if (clientId === undefined) {
    throw new UntrustedRequestError(duplicated(flow, 'client_id') ? 'The request names client_id more than once.' : 'The request does not say which application is asking (client_id is missing).');
  }
  const resolved = await resolvePageClient(flow.db, flow.site, clientId, flow.ctx.ip);
  if (!resolved) throw new UntrustedRequestError(`No application with client_id "${clip(clientId)}" is registered at ${flow.site.name}.`);
  flow.client = resolved.client;
  flow.ctx.state.clientId = resolved.client.clientId;
  flow.draft.clientId = clientId;
});

/**
 * RFC 6749 3.1.2.3 and 4.1.2.1: redirect_uri must equal, character for character, one the client registered; with
 * exactly one registered it may be omitted. A mismatch is shown, never redirected (no open redirector).
 */
export const verifyRedirectUri = step<AuthorizeFlow>('verify the redirect_uri', (flow) => {
  const client = need(flow, 'client');
  const query = need(flow, 'query');
  const given = query.get('redirect_uri');
  let redirectUri: string;
  if (given !== undefined) {
    if (!client.redirectUris.includes(given)) {
      throw new UntrustedRequestError(`The redirect_uri "${clip(given)}" is not registered for ${client.name}; it must match a registered one exactly.`);
    }
    redirectUri = given;
  } else if (duplicated(flow, 'redirect_uri')) {
    throw new UntrustedRequestError('The request names redirect_uri more than once.');
  } else {
    const [only, ...others] = client.redirectUris;
    if (only === undefined || others.length > 0) throw new UntrustedRequestError(`${client.name} registered several redirect URIs, so the request must name one (redirect_uri is missing).`);
    redirectUri = only;
  }
  flow.draft.redirectUri = redirectUri;
  flow.draft.redirectUriGiven = given !== undefined;
  flow.draft.state = query.get('state') ?? null;
  flow.redirect = { redirectUri, state: flow.draft.state, iss: flow.site.origin };
  const source = cspSourceForUri(redirectUri);
  if (source) flow.formActionSources.push(source);
});

export const refuseDuplicatedParameters = step<AuthorizeFlow>('refuse duplicated parameters', (flow) => {
  const names = flow.duplicatedParameters ?? [];
  if (names.length > 0) throw new InvalidRequestError(`the parameter${names.length > 1 ? 's' : ''} ${names.join(', ')} ${names.length > 1 ? 'are' : 'is'} given more than once`);
});

/** OpenID Connect Core 6: request objects are not supported (discovery says so). */
export const refuseRequestObjects = step<AuthorizeFlow>('refuse request objects', (flow) => {
  const query = need(flow, 'query');
  if (query.has('request')) throw new RequestNotSupportedError('request objects (the request parameter) are not supported');
  if (query.has('request_uri')) throw new RequestUriNotSupportedError('the request_uri parameter is not supported');
});

/** Spec, Endpoints: response_type=code only. */
export const checkResponseType = step<AuthorizeFlow>('check response_type is code', (flow) => {
  const responseType = need(flow, 'query').get('response_type');
  if (responseType === undefined) throw new InvalidRequestError('response_type is required; the only supported value is code');
  if (responseType !== 'code') throw new UnsupportedResponseTypeError(`response_type "${clip(responseType, 64)}" is not supported; use code`);
  const responseMode = need(flow, 'query').get('response_mode');
  if (responseMode !== undefined && responseMode !== 'query') throw new InvalidRequestError(`response_mode "${clip(responseMode, 64)}" is not supported; responses use the query`);
});

/** Spec, Limits and Authentication 1: PKCE with S256 only; `plain` (or no method, which means plain) is refused. */
export const requirePkceS256 = step<AuthorizeFlow>('require PKCE with S256', (flow) => {
  const query = need(flow, 'query');
  const challenge = query.get('code_challenge');
  const method = query.get('code_challenge_method');
  if (challenge === undefined) throw new InvalidRequestError('code_challenge is required: PKCE with code_challenge_method=S256 is mandatory');
  if (method !== 'S256') {
    throw new InvalidRequestError(method === undefined ? 'code_challenge_method is required and must be S256 (plain is not accepted)' : `code_challenge_method "${clip(method, 32)}" is not supported; only S256 is accepted`);
  }
  if (!CODE_CHALLENGE.test(challenge)) throw new InvalidRequestError('code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~" (the base64url SHA-256 of the code_verifier)');
  flow.draft.codeChallenge = challenge;
});

/** Spec, Authentication 7 and RFC 8707: resource must equal {base_url}, this site's origin. */
export const checkResource = step<AuthorizeFlow>('check resource is this site', (flow) => {
  const resource = need(flow, 'query').get('resource');
  if (resource === undefined) throw new InvalidTargetError(`resource is required and must be ${flow.site.origin}`);
  if (resource !== flow.site.origin) throw new InvalidTargetError(`resource must be ${flow.site.origin}, the value the protected resource metadata advertises`);
  flow.draft.resource = resource;
});

/** Spec, Authentication 5-6 and Scopes: every scope known and allowed for this client; account:* never for operator clients. */
export const resolveScopes = step<AuthorizeFlow>('resolve the scopes', (flow) => {
  flow.draft.scopes = resolveRequestedScopes(need(flow, 'client'), need(flow, 'query').get('scope'));
});

/** The nonce is echoed in the id_token (spec: id_token claims); it must fit the code record. */
export const checkNonce = step<AuthorizeFlow>('check the nonce', (flow) => {
  const nonce = need(flow, 'query').get('nonce');
  if (nonce !== undefined && nonce.length > MAX_NONCE_LENGTH) throw new InvalidRequestError(`nonce must be at most ${MAX_NONCE_LENGTH} characters`);
  flow.draft.nonce = nonce ?? null;
});

/** RFC 9449 10: dpop_jkt is a base64url SHA-256 JWK thumbprint (RFC 7638): 43 characters. */
export const checkDpopJkt = step<AuthorizeFlow>('check dpop_jkt', (flow) => {
  const dpopJkt = need(flow, 'query').get('dpop_jkt');
  if (dpopJkt !== undefined && !DPOP_JKT.test(dpopJkt)) throw new InvalidRequestError('dpop_jkt must be the base64url SHA-256 thumbprint (RFC 7638) of the DPoP public key: 43 characters of A-Z a-z 0-9 - _');
  flow.draft.dpopJkt = dpopJkt ?? null;
});

/**
 * OpenID Connect prompt: `none` cannot be honoured because consent is shown on every authorization (spec,
 * Authentication 13); `login` asks for the password even with a live session. login_hint pre-fills the email.
 */
export const readPromptAndHints = step<AuthorizeFlow>('read prompt and login_hint', (flow) => {
  const query = need(flow, 'query');
  const prompts = (query.get('prompt') ?? '').split(' ').filter(Boolean);
  if (prompts.includes('none')) throw new ConsentRequiredError('consent is shown on every authorization, so prompt=none cannot be honoured');
  flow.forceSignIn = prompts.includes('login');
  const hint = query.get('login_hint');
  flow.draft.loginHint = hint !== undefined && hint.length <= 191 && hint.includes('@') ? hint : null;
});
