import type { ParameterizedContext } from 'koa';

/**
 * CSP of the reference pages that are plain HTML (/docs, /docs/member-api): nothing loads, inline styles only, no
 * forms, no framing, no <base> rewriting.
 */
export const STATIC_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * CSP of the Swagger UI page (/docs/admin-api): scripts only from this origin (the bundle and the start-up script,
 * no inline script, no eval); styles from this origin plus inline ones, because Swagger UI's React components render
 * `style` attributes; images from this origin and `data:` (the stylesheet's icons are data: SVGs); requests only to
 * this origin (it fetches /openapi.json, and "Try it out" calls the admin API on the same origin).
 */
export const SWAGGER_UI_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Headers of a reference page: public and the same for everyone, so cacheable for a few minutes (unlike the pages
 * with CSRF tokens, which are no-store); no framing; no referrer; no sniffing.
 */
export function setDocsPageHeaders(ctx: ParameterizedContext, csp: string): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/**
 * CSP of the member API explorer (/docs/member-api/explorer, GraphiQL): scripts only from this origin (React,
 * GraphiQL and the start-up script, no inline script, no eval: GraphiQL 3's bundle needs neither); styles from this
 * origin plus inline ones (React renders `style` attributes and the editors set sizes inline); images and fonts from
 * the stylesheet's `data:` URLs; requests only to this origin (the schema and the member endpoint).
 */
export const EXPLORER_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";
