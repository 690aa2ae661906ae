import type { Middleware } from 'koa';
import type { SignedInSession } from '../../accounts/sessions.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { AccessDeniedError } from '../errors.js';
import { issueAuthorizationCode } from '../codes.js';
import { completeAuthorizationRequest } from './authorization-requests.js';
import { pageEndpoint } from './endpoint.js';
import { PageError, RequestGoneError } from './errors.js';
import { need, type AuthorizeFlow } from './flow.js';
import { step } from './pipeline.js';
import { checkCsrfToken, checkMayAuthorize, loadBrowserSession, loadPendingAuthorization, readPageForm, reloadClient, requireSignedInSession } from './shared-steps.js';
import { redirectToClient } from './respond.js';

/** Only the session the consent page was shown to may answer it. */
const requireConsentShownToThisSession = step<AuthorizeFlow>('require the consent page was shown to this session', (flow) => {
  if (need(flow, 'request').signInSessionId !== need(flow, 'session').id) {
    throw new RequestGoneError('This consent page was shown to another sign-in. Return to the application and start again.');
  }
});

const readDecision = step<AuthorizeFlow>('read the decision', (flow) => {
  const decision = need(flow, 'form').get('decision');
  if (decision !== 'approve' && decision !== 'deny') throw new PageError(400, 'invalid_request', 'Choose Approve or Deny', 'The form did not say whether you approve or deny the request.');
});

/** Single use: of two posts of one consent form (a replay, a double click) only the first continues. */
const completeRequest = step<AuthorizeFlow>('finish the authorization request (once)', async (flow) => {
  if (!(await completeAuthorizationRequest(flow.db, need(flow, 'request').id))) {
    throw new RequestGoneError('This authorization was already completed; each one can be answered once. Return to the application to continue.');
  }
});

/** RFC 6749 4.1.2.1: a refusal is access_denied on the redirect. */
const honourDenial = step<AuthorizeFlow>('send access_denied when denied', (flow) => {
  if (need(flow, 'form').get('decision') === 'deny') throw new AccessDeniedError('the user denied the request');
});

/** RFC 6749 4.1.2 with RFC 9207: code, state and iss on the redirect; the code records what the token endpoint checks. */
const issueCode = step<AuthorizeFlow>('issue the authorization code', async (flow) => {
  const request = need(flow, 'request');
  const session = need(flow, 'session') as SignedInSession;
  const { parameters } = request;
  const code = await issueAuthorizationCode(flow.db, {
    siteId: flow.site.id,
    clientRef: request.clientRef,
    userId: session.userId,
    redirectUri: parameters.redirectUri,
    scopes: parameters.scopes,
    resource: parameters.resource,
    codeChallenge: parameters.codeChallenge,
    nonce: parameters.nonce ?? undefined,
    dpopJkt: parameters.dpopJkt ?? null,
    authTime: session.authenticatedAt,
    sid: session.sid,
  });
  flow.ctx.state.log.info({ event: 'authorization_approved', userId: session.userId, clientRef: request.clientRef }, 'authorization approved');
  redirectToClient(flow, { code });
});

/** POST /oauth/authorize/consent: Approve or Deny. */
export const CONSENT_STEPS = [
  readPageForm,
  loadBrowserSession,
  requireSignedInSession,
  checkCsrfToken,
  loadPendingAuthorization,
  requireConsentShownToThisSession,
  reloadClient,
  readDecision,
  completeRequest,
  honourDenial,
  checkMayAuthorize,
  issueCode,
];

export function consentEndpoint(services: Services): Middleware<SiteState> {
  return pageEndpoint(services, CONSENT_STEPS);
}
