import type { ParameterizedContext } from 'koa';

/**
 * Cookies written by hand so every attribute is exactly what docs/authorize.md says (Koa's cookie helper lower-cases
 * attributes and refuses Secure behind a proxy it does not trust).
 */

export interface CookieAttributes {
  /** Seconds until the browser drops it; 0 deletes it at once. Absent: a browser-session cookie. */
  maxAgeSeconds?: number;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// RFC 6265 4.1.1 cookie-octet: no controls, whitespace, DQUOTE, comma, semicolon or backslash.
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;

export function serializeCookie(name: string, value: string, attributes: CookieAttributes): string {
  if (!COOKIE_NAME.test(name)) throw new TypeError(`invalid cookie name ${name}`);
  if (!COOKIE_VALUE.test(value)) throw new TypeError(`invalid value for cookie ${name}`);
  const parts = [`${name}=${value}`];
  if (attributes.maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(attributes.maxAgeSeconds))}`);
  parts.push(`Path=${attributes.path}`);
  if (attributes.secure) parts.push('Secure');
  if (attributes.httpOnly) parts.push('HttpOnly');
  parts.push(`SameSite=${attributes.sameSite}`);
  return parts.join('; ');
}

/** Every value the Cookie header carries under `name` (a browser may send several for one name). */
export function readCookies(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const pair of header.split(';')) {
    const index = pair.indexOf('=');
    if (index < 0) continue;
    if (pair.slice(0, index).trim() !== name) continue;
    const value = pair.slice(index + 1).trim();
    if (value !== '' && COOKIE_VALUE.test(value)) values.push(value);
  }
  return values;
}

export function appendSetCookie(ctx: ParameterizedContext, cookie: string): void {
  ctx.append('Set-Cookie', cookie);
}

/**
 * The sign-in session cookie of a site. On an https origin it is `__Host-sg_session` with Secure: the `__Host-`
 * prefix makes the browser refuse it unless it is Secure, has `Path=/` and no Domain, so no sibling host can plant
 * or overwrite it (RFC 6265bis 4.1.3.2). A plain-http origin (local development and tests) cannot use either, so the
 * cookie is `sg_session` there. Both are HttpOnly and SameSite=Lax.
 */
export function sessionCookieName(origin: string): string {
  return isHttpsOrigin(origin) ? '__Host-sg_session' : 'sg_session';
}

export function isHttpsOrigin(origin: string): boolean {
  return origin.startsWith('https://');
}

export function sessionCookie(origin: string, token: string, maxAgeSeconds: number): string {
  return serializeCookie(sessionCookieName(origin), token, { maxAgeSeconds, path: '/', secure: isHttpsOrigin(origin), httpOnly: true, sameSite: 'Lax' });
}

export function readSessionCookies(ctx: ParameterizedContext, origin: string): string[] {
  return readCookies(ctx.get('cookie') || undefined, sessionCookieName(origin));
}
