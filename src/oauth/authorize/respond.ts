import { toAppError } from '../../http/errors.js';
import { setPageSecurityHeaders } from '../../http/security-headers.js';
import { OAuthError } from '../errors.js';
import { completeAuthorizationRequest } from './authorization-requests.js';
import { PageError } from './errors.js';
import type { AuthorizeFlow } from './flow.js';
import { errorPage } from './pages/error-page.js';
import { logFailure } from '../../shared/failure-log.js';

/** Answers with an HTML page carrying the page security headers; ends the flow. */
export function sendPage(flow: AuthorizeFlow, status: number, html: string, headers: Readonly<Record<string, string>> = {}): void {
  const { ctx } = flow;
  setPageSecurityHeaders(ctx, { formActionSources: flow.formActionSources });
  ctx.set(headers);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
  flow.finished = true;
}

/**
 * `redirect_uri` plus the response parameters, `state` when the request had one, and `iss` (RFC 9207). The query of
 * a registered redirect_uri is kept as it is (RFC 6749 3.1.2).
 */
export function clientRedirectUrl(target: NonNullable<AuthorizeFlow['redirect']>, parameters: Record<string, string>): string {
  const query = new URLSearchParams(parameters);
  if (target.state !== null) query.set('state', target.state);
  query.set('iss', target.iss);
  const base = target.redirectUri;
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${query.toString()}`;
}

/** Sends the browser back to the verified redirect_uri: 302 from the GET endpoint, 303 (See Other) after a form post. */
export function redirectToClient(flow: AuthorizeFlow, parameters: Record<string, string>): void {
  const { ctx } = flow;
  if (!flow.redirect) throw new Error('redirectToClient before the redirect_uri was verified');
  setPageSecurityHeaders(ctx, { formActionSources: flow.formActionSources });
  ctx.status = ctx.method === 'GET' || ctx.method === 'HEAD' ? 302 : 303;
  const location = clientRedirectUrl(flow.redirect, parameters);
  ctx.set('Location', location);
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'Redirecting back to the application.';
  flow.finished = true;
}

/**
 * Turns a failed step into the answer RFC 6749 4.1.2.1 prescribes: an OAuth error once the redirect_uri is verified
 * goes back to the client (`error`, `error_description`, `state`, `iss`) and finishes the saved request; anything
 * else (unverified client or redirect_uri, CSRF, expired pages, rate limits, failures of ours) is an HTML page.
 */
export async function respondWithError(flow: AuthorizeFlow, raw: unknown): Promise<void> {
  if (raw instanceof OAuthError && flow.redirect !== null && raw.status < 500) {
    if (flow.request) await completeAuthorizationRequest(flow.db, flow.request.id);
    redirectToClient(flow, { error: raw.code, error_description: raw.message });
    return;
  }
  const error = toAppError(raw);
  if (error.status >= 500) logFailure(flow.ctx.state.log, raw, 'authorize page failed');
  const title = error instanceof PageError ? error.title : error.status >= 500 ? 'Something went wrong' : 'This request cannot be completed';
  const message = error.status >= 500 && error.status !== 503 ? 'The server could not complete this step. Try again in a moment.' : error.message;
  sendPage(flow, error.status, errorPage(flow.site, title, message, error.code), error.headers);
}
