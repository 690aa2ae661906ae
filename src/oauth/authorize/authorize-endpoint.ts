import type { Middleware } from 'koa';
import { isSignedIn } from '../../accounts/sessions.js';
import { rolesAt } from '../../accounts/roles.js';
import { getUserAt } from '../../accounts/users.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import type { AnonymousLimitsConfig } from '../../config/config.js';
import { addressBucket, addressLimits, ANONYMOUS_LIMITS, countHit, type Limit } from '../anonymous-limits.js';
import { refusalReason } from './access-policy.js';
import { saveAuthorizationRequest, type AuthorizationParameters } from './authorization-requests.js';
import { findBrowserSession, startBrowserSession } from './browser-session.js';
import { TooManyRequestsPageError } from './errors.js';
import { need, type AuthorizeFlow } from './flow.js';
import { pageEndpoint } from './endpoint.js';
import { step, type Step } from './pipeline.js';
import {
  checkDpopJkt,
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
  const { clientId, redirectUri, redirectUriGiven, scopes, resource, codeChallenge, state, nonce, loginHint, dpopJkt } = flow.draft;
  if (clientId === undefined || redirectUri === undefined || scopes === undefined || resource === undefined || codeChallenge === undefined) {
    throw new Error('authorize step order: the request is not fully validated');
  }
  return { clientId, redirectUri, redirectUriGiven: redirectUriGiven ?? true, scopes, resource, codeChallenge, state: state ?? null, nonce: nonce ?? null, loginHint: loginHint ?? null, dpopJkt: dpopJkt ?? null };
}

/** The browser's session at this site, if it has one (read only: a new one is started once the request is saved). */
const loadBrowserSession = step<AuthorizeFlow>('load the browser session', async (flow) => {
  const found = await findBrowserSession(flow);
  if (found) {
    flow.session = found.session;
    flow.sessionToken = found.token;
  }
});

/**
 * A valid request from a browser that is not signed in writes rows (the request, maybe a session) for anyone who
 * asks, so it is counted per client address and per client (docs/oauth.md, "Limits on anonymous traffic"); a request
 * that failed validation never got here and wrote nothing.
 */
function limitAnonymousRequests(perAddress: Limit): Step<AuthorizeFlow> {
  return step<AuthorizeFlow>('limit requests from browsers not signed in', async (flow) => {
    if (flow.session && isSignedIn(flow.session)) return;
    const outcomes = [
      await countHit(flow.db, addressBucket('authorize', flow.ctx.ip), perAddress),
      await countHit(flow.db, `authorize:client:${need(flow, 'client').ref}`, ANONYMOUS_LIMITS.authorizePerClient),
    ];
    const refused = outcomes.find((outcome) => !outcome.allowed);
    if (refused) throw new TooManyRequestsPageError(refused.retryAfterSeconds);
  });
}

/** Saved so that any instance can finish it; the pages carry its handle. */
const saveRequest = step<AuthorizeFlow>('save the authorization request', async (flow) => {
  const { handle, request } = await saveAuthorizationRequest(flow.db, flow.site.id, need(flow, 'client').ref, completeDraft(flow));
  flow.handle = handle;
  flow.request = request;
});

/** A browser without a session gets a new anonymous one, whose CSRF secret protects the sign-in form. */
const startBrowserSessionIfNone = step<AuthorizeFlow>('start a browser session if there is none', async (flow) => {
  if (!flow.session) await startBrowserSession(flow);
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
export function authorizeSteps(limits: AnonymousLimitsConfig): Array<Step<AuthorizeFlow>> {
  return [
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
    checkDpopJkt,
    readPromptAndHints,
    loadBrowserSession,
    limitAnonymousRequests(addressLimits(limits).authorize),
    saveRequest,
    startBrowserSessionIfNone,
    showSignInOrConsent,
  ];
}

export function authorizeEndpoint(services: Services): Middleware<SiteState> {
  return pageEndpoint(services, authorizeSteps(services.config.anonymousLimits));
}
