import type { Middleware } from 'koa';
import { isSignedIn } from '../../accounts/sessions.js';
import { rolesAt } from '../../accounts/roles.js';
import { getUserAt } from '../../accounts/users.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { refusalReason } from './access-policy.js';
import { saveAuthorizationRequest, type AuthorizationParameters } from './authorization-requests.js';
import { findBrowserSession, startBrowserSession } from './browser-session.js';
import { need, type AuthorizeFlow } from './flow.js';
import { pageEndpoint } from './endpoint.js';
import { step } from './pipeline.js';
import {
  checkNonce,
  checkResource,
  checkResponseType,
  identifyClient,
  readAuthorizationQuery,
  readPromptAndHints,
  refuseDuplicatedParameters,
  refuseRequestObjects,
  requirePkceS256,
  resolveScopes,
  verifyRedirectUri,
} from './request-checks.js';
import { showConsentPage, showSignInPage } from './shared-steps.js';

function completeDraft(flow: AuthorizeFlow): AuthorizationParameters {
  const { clientId, redirectUri, redirectUriGiven, scopes, resource, codeChallenge, state, nonce, loginHint } = flow.draft;
  if (clientId === undefined || redirectUri === undefined || scopes === undefined || resource === undefined || codeChallenge === undefined) {
    throw new Error('authorize step order: the request is not fully validated');
  }
  return { clientId, redirectUri, redirectUriGiven: redirectUriGiven ?? true, scopes, resource, codeChallenge, state: state ?? null, nonce: nonce ?? null, loginHint: loginHint ?? null };
}

/** Saved so that any instance can finish it; the pages carry its handle. */
const saveRequest = step<AuthorizeFlow>('save the authorization request', async (flow) => {
  const { handle, request } = await saveAuthorizationRequest(flow.db, flow.site.id, need(flow, 'client').ref, completeDraft(flow));
  flow.handle = handle;
  flow.request = request;
});

/** The browser's session at this site, or a new anonymous one whose CSRF secret protects the sign-in form. */
const loadOrStartBrowserSession = step<AuthorizeFlow>('load or start the browser session', async (flow) => {
  const found = await findBrowserSession(flow);
  if (found) {
    flow.session = found.session;
    flow.sessionToken = found.token;
  } else {
    await startBrowserSession(flow);
  }
});

/**
 * A signed-in user who may authorize this client skips the sign-in page but always sees the consent page (spec,
 * Authentication 13). One who may not is offered the sign-in page to switch accounts (or cancel).
 */
const showSignInOrConsent = step<AuthorizeFlow>('show the sign-in or the consent page', async (flow) => {
  const session = need(flow, 'session');
  if (!isSignedIn(session) || flow.forceSignIn) {
    showSignInPage(flow);
    return;
  }
  const reason = refusalReason(need(flow, 'client'), await rolesAt(flow.db, flow.site.id, session.userId), flow.site.name);
  if (reason === null) {
    await showConsentPage(flow);
    return;
  }
  const user = await getUserAt(flow.db, flow.site.id, session.userId);
  showSignInPage(flow, { notice: `You are signed in as ${user.email}, but ${reason}. Sign in with another account, or cancel.`, email: '' });
});

/** GET /oauth/authorize (spec: Endpoints; RFC 6749 4.1.1, RFC 7636, RFC 8707, RFC 9207). */
export const AUTHORIZE_STEPS = [
  readAuthorizationQuery,
  identifyClient,
  verifyRedirectUri,
  // From here on, errors go back to the client's redirect_uri (RFC 6749 4.1.2.1).
  refuseDuplicatedParameters,
  refuseRequestObjects,
  checkResponseType,
  requirePkceS256,
  checkResource,
  resolveScopes,
  checkNonce,
  readPromptAndHints,
  saveRequest,
  loadOrStartBrowserSession,
  showSignInOrConsent,
];

export function authorizeEndpoint(services: Services): Middleware<SiteState> {
  return pageEndpoint(services, AUTHORIZE_STEPS);
}
