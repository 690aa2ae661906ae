import type { ParameterizedContext } from 'koa';

/**
 * Headers of every server-rendered page (and of the redirects those pages cause):
 * - CSP: nothing loads (no scripts, images or fonts; inline styles only), forms post only to this origin and to the
 *   client's redirect origin, no framing (clickjacking), no <base> rewriting. `form-action` lists the redirect origin
 *   because browsers (Chromium) apply it to the redirect that follows a form POST.
 * - `X-Frame-Options: DENY` for browsers without CSP frame-ancestors; `Cache-Control: no-store` since pages carry
 *   CSRF tokens and personal data; `Referrer-Policy: no-referrer` so no URL (with its parameters) leaks onward.
 */
export function setPageSecurityHeaders(ctx: ParameterizedContext, options: { formActionSources?: readonly string[] } = {}): void {
  const formAction = ["'self'", ...new Set(options.formActionSources ?? [])].join(' ');
  ctx.set('Content-Security-Policy', `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/**
 * The CSP source that admits navigation to a redirect URI: its origin for http(s), its scheme for a native app's
 * private-use scheme (RFC 8252 7.1, e.g. `com.example.app:`). Null when the URI is not absolute.
 */
export function cspSourceForUri(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : null;
}
