import type { Middleware } from 'koa';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { AccessDeniedError } from '../errors.js';
import { pageEndpoint } from './endpoint.js';
import type { AuthorizeFlow } from './flow.js';
import { step } from './pipeline.js';
import { checkCsrfToken, loadBrowserSession, loadPendingAuthorization, readPageForm } from './shared-steps.js';

/** RFC 6749 4.1.2.1: the resource owner declined; the error redirect finishes the request. */
const sendAccessDenied = step<AuthorizeFlow>('send access_denied', () => {
  throw new AccessDeniedError('the user cancelled the sign-in');
});

/** POST /oauth/authorize/cancel: "Cancel and return to the app" on the sign-in page. */
export const CANCEL_STEPS = [readPageForm, loadBrowserSession, checkCsrfToken, loadPendingAuthorization, sendAccessDenied];

export function cancelEndpoint(services: Services): Middleware<SiteState> {
  return pageEndpoint(services, CANCEL_STEPS);
}
