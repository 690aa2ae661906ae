/**
 * The authorization pages driven like a browser without JavaScript (test/support/authorize-flow.ts), except that
 * each step may go to a different instance: the browser sees one origin (SITE_ORIGIN) and the load balancer picks the
 * instance. The cookie jar is keyed by the site's host, so every instance gets the same cookies.
 */
import { CookieJar, findForm, pageMessage, pageNameOf, type HtmlForm } from '../../support/authorize-flow.js';
import { SITE_ORIGIN, siteFetch, type Instance } from './instances.js';

export { CookieJar };

export type PageAnswer =
  | { kind: 'page'; url: URL; status: number; html: string; headers: Headers }
  | { kind: 'redirect'; url: URL; status: number; location: URL; headers: Headers };

/** One browser request for a site URL, through `instance`. */
export async function pageRequest(instance: Instance, jar: CookieJar, url: URL, init: { form?: Map<string, string>; clientAddress?: string } = {}): Promise<PageAnswer> {
  const headers: Record<string, string> = { accept: 'text/html' };
  const cookie = jar.header(url);
  if (cookie) headers.cookie = cookie;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams([...init.form]).toString();
  }
  const response = await siteFetch(instance, url, { method: body === undefined ? 'GET' : 'POST', headers, body, clientAddress: init.clientAddress });
  jar.store(url, response);
  const location = response.headers.get('location');
  if (response.status >= 300 && response.status < 400 && location !== null) {
    await response.arrayBuffer();
    return { kind: 'redirect', url, status: response.status, location: new URL(location, url), headers: response.headers };
  }
  return { kind: 'page', url, status: response.status, html: await response.text(), headers: response.headers };
}

export function describe(answer: PageAnswer): string {
  if (answer.kind === 'redirect') return `a ${answer.status} redirect to ${answer.location.href}`;
  return `the ${pageNameOf(answer.html) ?? 'unknown'} page (HTTP ${answer.status})${pageMessage(answer.html) ? `: "${pageMessage(answer.html)}"` : ''}`;
}

export function submit(instance: Instance, jar: CookieJar, answer: PageAnswer & { kind: 'page' }, form: HtmlForm, values: Record<string, string>, clientAddress?: string): Promise<PageAnswer> {
  const fields = new Map(form.fields);
  for (const [name, value] of Object.entries(values)) fields.set(name, value);
  return pageRequest(instance, jar, new URL(form.action, answer.url), { form: fields, clientAddress });
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  codeChallenge: string;
  state: string;
  nonce: string;
}

export function authorizationUrl(request: AuthorizationRequest): URL {
  const url = new URL('/oauth/authorize', SITE_ORIGIN);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope,
    resource: SITE_ORIGIN,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    state: request.state,
    nonce: request.nonce,
  }).toString();
  return url;
}

/** Opens the authorization request at `at.authorize` and returns the sign-in page (a fresh browser session). */
export async function openSignInPage(instance: Instance, jar: CookieJar, request: AuthorizationRequest, clientAddress?: string): Promise<PageAnswer & { kind: 'page' }> {
  const answer = await pageRequest(instance, jar, authorizationUrl(request), { clientAddress });
  if (answer.kind !== 'page' || pageNameOf(answer.html) !== 'sign-in') throw new Error(`expected the sign-in page, got ${describe(answer)}`);
  return answer;
}

export function signInForm(answer: PageAnswer & { kind: 'page' }): HtmlForm {
  const form = findForm(answer.html, '/oauth/authorize/sign-in');
  if (!form) throw new Error(`the page has no sign-in form: ${describe(answer)}`);
  return form;
}

/**
 * The whole flow: the authorization request at `at.authorize`, the sign-in form posted to `at.signIn`, the consent
 * approved at `at.consent`. Returns the code and the iss of the redirect back to the client.
 */
export async function authorizeThroughPages(
  at: { authorize: Instance; signIn: Instance; consent: Instance },
  request: AuthorizationRequest,
  credentials: { email: string; password: string },
): Promise<{ code: string; iss: string | null; state: string | null }> {
  const jar = new CookieJar();
  const signInPage = await openSignInPage(at.authorize, jar, request);
  const consent = await submit(at.signIn, jar, signInPage, signInForm(signInPage), credentials);
  if (consent.kind !== 'page' || pageNameOf(consent.html) !== 'consent') throw new Error(`expected the consent page after signing in, got ${describe(consent)}`);
  const form = findForm(consent.html, '/oauth/authorize/consent');
  if (!form) throw new Error('the consent page has no consent form');
  const back = await submit(at.consent, jar, consent, form, { decision: 'approve' });
  if (back.kind !== 'redirect') throw new Error(`expected the redirect back to the client, got ${describe(back)}`);
  const code = back.location.searchParams.get('code');
  if (code === null) throw new Error(`the client got no code: ${back.location.href}`);
  return { code, iss: back.location.searchParams.get('iss'), state: back.location.searchParams.get('state') };
}
