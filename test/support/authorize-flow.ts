/**
 * Drives GET /oauth/authorize and its server-rendered pages with plain fetch, the way a browser without JavaScript
 * does: a cookie jar, the forms as rendered (hidden fields included), no redirect followed automatically, and a stop
 * at the redirect back to the client. Token-endpoint tests use it to obtain authorization codes:
 *
 *   const { verifier, challenge } = createPkcePair();
 *   const { code, iss } = await authorizeViaPages({ origin, clientId, redirectUri, scope: 'openid account:read',
 *     email, password, codeChallenge: challenge, state: 'xyz', nonce: 'n-1' });
 *   // …then exchange `code` with `verifier` at /api/oauth/token.
 *
 * It never fetches the redirect_uri, so the client's address needs no server. Failures throw an Error that says which
 * page or redirect came instead (with the page's message), so a broken flow reads clearly in a test report.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface AuthorizeViaPagesOptions {
  /** The site's origin, `{base_url}`, e.g. `http://localhost:PORT`. */
  origin: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  email: string;
  password: string;
  state?: string;
  nonce?: string;
  /** The S256 challenge (see createPkcePair); code_challenge_method=S256 is always sent unless overridden. */
  codeChallenge: string;
  /** Defaults to `origin` (the spec: resource = {base_url}). */
  resource?: string;
  /** Reuse a browser: with a live session in the jar the sign-in page is skipped (consent is still shown). */
  jar?: CookieJar;
  /** What to answer on the consent page; default approve. */
  decision?: 'approve' | 'deny';
  /** Query parameters to add or replace; `null` removes one (e.g. `{ code_challenge_method: 'plain' }`). */
  extraParameters?: Record<string, string | null>;
  /** Sent as User-Agent (and X-Forwarded-For is never sent). */
  userAgent?: string;
}

/** Where the pages sent the browser back to the client, with the response parameters read from it. */
export interface AuthorizationRedirect {
  location: URL;
  /** 302 from GET /oauth/authorize, 303 after a form post. */
  status: number;
  code: string | null;
  error: string | null;
  errorDescription: string | null;
  state: string | null;
  iss: string | null;
  /** The pages shown on the way, in order: 'sign-in', 'consent'. */
  pages: PageName[];
}

export interface AuthorizationCodeResult {
  code: string;
  state: string | null;
  iss: string | null;
  location: URL;
  pages: PageName[];
}

export interface AuthorizationErrorResult {
  error: string;
  errorDescription: string | null;
  state: string | null;
  iss: string | null;
  location: URL;
  pages: PageName[];
}

export type PageName = 'sign-in' | 'consent' | 'error';

/** A minimal cookie jar: per host (cookies ignore the port), honours Max-Age=0 / past Expires as deletion. */
export class CookieJar {
  private readonly byHost = new Map<string, Map<string, string>>();

  store(url: string | URL, response: Response): void {
    const host = new URL(url).hostname;
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';');
      const index = pair.indexOf('=');
      if (index <= 0) continue;
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const cookies = this.byHost.get(host) ?? new Map<string, string>();
      const expired = attributes.some((attribute) => {
        const [key = '', raw = ''] = attribute.split('=');
        const lower = key.trim().toLowerCase();
        return (lower === 'max-age' && Number(raw) <= 0) || (lower === 'expires' && Date.parse(raw) <= Date.now());
      });
      if (expired) cookies.delete(name);
      else cookies.set(name, value);
      this.byHost.set(host, cookies);
    }
  }

  header(url: string | URL): string | undefined {
    const cookies = this.byHost.get(new URL(url).hostname);
    if (!cookies || cookies.size === 0) return undefined;
    return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  get(url: string | URL, name: string): string | undefined {
    return this.byHost.get(new URL(url).hostname)?.get(name);
  }

  set(url: string | URL, name: string, value: string): void {
    const host = new URL(url).hostname;
    const cookies = this.byHost.get(host) ?? new Map<string, string>();
    cookies.set(name, value);
    this.byHost.set(host, cookies);
  }
}

/** A PKCE pair (RFC 7636): a 43-character verifier and its S256 challenge. */
export function createPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The authorization request URL the options describe. */
export function buildAuthorizationUrl(options: AuthorizeViaPagesOptions): URL {
  const url = new URL('/oauth/authorize', options.origin);
  const parameters: Record<string, string | null> = {
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scope,
    resource: options.resource ?? options.origin,
    code_challenge: options.codeChallenge,
    code_challenge_method: 'S256',
    state: options.state ?? null,
    nonce: options.nonce ?? null,
    ...options.extraParameters,
  };
  for (const [name, value] of Object.entries(parameters)) if (value !== null) url.searchParams.set(name, value);
  return url;
}

// --- HTML forms, as the pages render them --------------------------------------------------------------------------

export interface HtmlForm {
  action: string;
  method: string;
  /** Hidden and pre-filled inputs. */
  fields: Map<string, string>;
  /** Submit buttons with a name: name → values. */
  buttons: Array<{ name: string; value: string }>;
}

/** HTML text with its character references decoded (the named ones our pages write, and numeric ones). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|#39|apos);/gi, (entity, body: string) => {
    const lower = body.toLowerCase();
    if (lower === 'amp') return '&';
    if (lower === 'lt') return '<';
    if (lower === 'gt') return '>';
    if (lower === 'quot') return '"';
    if (lower === 'apos' || lower === '#39') return "'";
    const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : Number(lower.slice(1));
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    const [, name = '', doubleQuoted, singleQuoted, bare] = match;
    attributes.set(name.toLowerCase(), decodeEntities(doubleQuoted ?? singleQuoted ?? bare ?? ''));
  }
  return attributes;
}

/** Every form of a page with its hidden/pre-filled fields and named submit buttons. */
export function parseForms(html: string): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attributes = attributesOf(match[1] ?? '');
    const inner = match[2] ?? '';
    const fields = new Map<string, string>();
    for (const input of inner.matchAll(/<input\b([^>]*)>/gi)) {
      const inputAttributes = attributesOf(input[1] ?? '');
      const name = inputAttributes.get('name');
      if (name !== undefined) fields.set(name, inputAttributes.get('value') ?? '');
    }
    const buttons: HtmlForm['buttons'] = [];
    for (const button of inner.matchAll(/<button\b([^>]*)>/gi)) {
      const buttonAttributes = attributesOf(button[1] ?? '');
      const name = buttonAttributes.get('name');
      if (name !== undefined) buttons.push({ name, value: buttonAttributes.get('value') ?? '' });
    }
    forms.push({ action: attributes.get('action') ?? '', method: (attributes.get('method') ?? 'get').toLowerCase(), fields, buttons });
  }
  return forms;
}

/** Which page an HTML answer is, from its `<main data-page="…">`. */
export function pageNameOf(html: string): PageName | null {
  const match = /<main\b[^>]*\bdata-page="([a-z-]+)"/.exec(html);
  const name = match?.[1];
  return name === 'sign-in' || name === 'consent' || name === 'error' ? name : null;
}

/** The visible text of a page's alert or notice (error pages, the sign-in error), for messages in failures. */
export function pageMessage(html: string): string {
  const match = /<p class="(?:error|notice)"[^>]*>([\s\S]*?)<\/p>/.exec(html);
  return match ? decodeEntities((match[1] ?? '').replace(/<[^>]+>/g, '')).trim() : '';
}

export function findForm(html: string, actionPath: string): HtmlForm | undefined {
  return parseForms(html).find((form) => form.action === actionPath);
}

// --- One browser step ------------------------------------------------------------------------------------------------

export type BrowserAnswer = { kind: 'page'; url: URL; status: number; html: string; response: Response } | { kind: 'redirect'; url: URL; status: number; location: URL; response: Response };

/** A form body: fields by name, or name/value pairs where a name may repeat (several checked boxes). */
export type FormFields = Map<string, string> | Record<string, string> | ReadonlyArray<readonly [string, string]>;

function isPairList(form: FormFields): form is ReadonlyArray<readonly [string, string]> {
  return Array.isArray(form);
}

/** One request as the browser makes it: cookies from the jar, Set-Cookie back into it, no redirect followed. */
export async function browserRequest(jar: CookieJar, url: URL, init: { method?: 'GET' | 'POST'; form?: FormFields; userAgent?: string } = {}): Promise<BrowserAnswer> {
  const headers: Record<string, string> = { accept: 'text/html' };
  const cookie = jar.header(url);
  if (cookie) headers.cookie = cookie;
  if (init.userAgent) headers['user-agent'] = init.userAgent;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    const pairs: ReadonlyArray<readonly [string, string]> = init.form instanceof Map ? [...init.form] : isPairList(init.form) ? init.form : Object.entries(init.form);
    body = new URLSearchParams(pairs.map(([name, value]): [string, string] => [name, value])).toString();
  }
  const response = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, redirect: 'manual' });
  jar.store(url, response);
  const location = response.headers.get('location');
  if (response.status >= 300 && response.status < 400 && location !== null) {
    await response.arrayBuffer();
    return { kind: 'redirect', url, status: response.status, location: new URL(location, url), response };
  }
  return { kind: 'page', url, status: response.status, html: await response.text(), response };
}

/** Posts a form of a page as its submit button would (hidden fields, then the given values). */
export function submitForm(jar: CookieJar, page: URL, form: HtmlForm, values: Record<string, string>, userAgent?: string): Promise<BrowserAnswer> {
  const fields = new Map(form.fields);
  for (const [name, value] of Object.entries(values)) fields.set(name, value);
  return browserRequest(jar, new URL(form.action, page), { method: 'POST', form: fields, userAgent });
}

function describeAnswer(answer: BrowserAnswer): string {
  if (answer.kind === 'redirect') return `a ${answer.status} redirect to ${answer.location.href}`;
  const name = pageNameOf(answer.html) ?? 'unknown';
  const message = pageMessage(answer.html);
  return `the ${name} page (HTTP ${answer.status})${message ? `: "${message}"` : ''}`;
}

function toRedirect(answer: Extract<BrowserAnswer, { kind: 'redirect' }>, pages: PageName[]): AuthorizationRedirect {
  const query = answer.location.searchParams;
  return {
    location: answer.location,
    status: answer.status,
    code: query.get('code'),
    error: query.get('error'),
    errorDescription: query.get('error_description'),
    state: query.get('state'),
    iss: query.get('iss'),
    pages,
  };
}

/**
 * Opens the authorization URL and walks the pages (sign-in with the given credentials when asked, then the consent
 * page with the given decision) until the browser is sent back to the client. Returns that redirect, whether it
 * carries a code or an error. Throws when a page cannot be passed (an error page, a refused password).
 */
export function followAuthorizationPages(options: AuthorizeViaPagesOptions): Promise<AuthorizationRedirect> {
  return walkAuthorizationPages(buildAuthorizationUrl(options), options);
}

/** As followAuthorizationPages, from an authorization URL a client library built. */
export async function walkAuthorizationPages(
  url: URL,
  options: Pick<AuthorizeViaPagesOptions, 'origin' | 'email' | 'password' | 'jar' | 'decision' | 'userAgent'>,
): Promise<AuthorizationRedirect> {
  const jar = options.jar ?? new CookieJar();
  const pages: PageName[] = [];
  let answer = await browserRequest(jar, url, { userAgent: options.userAgent });
  for (let steps = 0; steps < 6; steps += 1) {
    if (answer.kind === 'redirect') {
      if (new URL(answer.location).origin === new URL(options.origin).origin && answer.location.pathname.startsWith('/oauth/')) {
        throw new Error(`authorizeViaPages: unexpected redirect inside the server: ${answer.location.href}`);
      }
      return toRedirect(answer, pages);
    }
    const name = pageNameOf(answer.html);
    if (name === 'sign-in') {
      if (pages.at(-1) === 'sign-in') throw new Error(`authorizeViaPages: signing in as ${options.email} failed: ${describeAnswer(answer)}`);
      pages.push('sign-in');
      const form = findForm(answer.html, '/oauth/authorize/sign-in');
      if (!form) throw new Error('authorizeViaPages: the sign-in page has no sign-in form');
      answer = await submitForm(jar, answer.url, form, { email: options.email, password: options.password }, options.userAgent);
      continue;
    }
    if (name === 'consent') {
      pages.push('consent');
      const form = findForm(answer.html, '/oauth/authorize/consent');
      const decision = options.decision ?? 'approve';
      if (!form || !form.buttons.some((button) => button.name === 'decision' && button.value === decision)) {
        throw new Error(`authorizeViaPages: the consent page has no ${decision} button`);
      }
      answer = await submitForm(jar, answer.url, form, { decision }, options.userAgent);
      continue;
    }
    throw new Error(`authorizeViaPages: expected the sign-in or consent page, got ${describeAnswer(answer)}`);
  }
  throw new Error('authorizeViaPages: the pages did not lead back to the client');
}

/** Signs in, approves, and returns the authorization response (`code`, `state`, `iss`). Throws on an error redirect. */
export async function authorizeViaPages(options: AuthorizeViaPagesOptions): Promise<AuthorizationCodeResult> {
  const redirect = await followAuthorizationPages(options);
  if (redirect.error !== null || redirect.code === null) {
    throw new Error(`authorizeViaPages: the client got error=${redirect.error ?? '(none)'} (${redirect.errorDescription ?? 'no description'}) instead of a code: ${redirect.location.href}`);
  }
  return { code: redirect.code, state: redirect.state, iss: redirect.iss, location: redirect.location, pages: redirect.pages };
}

/** For error cases: runs the same flow and returns the error redirect (`error`, `error_description`, `state`, `iss`). Throws if a code came back. */
export async function authorizeViaPagesExpectingError(options: AuthorizeViaPagesOptions): Promise<AuthorizationErrorResult> {
  const redirect = await followAuthorizationPages(options);
  if (redirect.error === null) throw new Error(`authorizeViaPages: expected an error redirect, got ${redirect.location.href}`);
  return { error: redirect.error, errorDescription: redirect.errorDescription, state: redirect.state, iss: redirect.iss, location: redirect.location, pages: redirect.pages };
}
