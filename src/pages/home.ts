import type { Middleware } from 'koa';
import type { SiteState } from '../http/state.js';
import { CONNECTED_APPS_PATHS } from './connected-apps/paths.js';
import { html, joinHtml, safeUrl } from '../http/html.js';
import { layout } from '../http/layout.js';
import type { VariantProfile } from '../variant.js';

/** GET /: the school's landing page, pointing people and agents at the interfaces this origin serves. */
export function homePage(variant: VariantProfile): Middleware<SiteState> {
  const graphqlPath = variant.memberGraphql.path;
  return async (ctx) => {
    const { site } = ctx.state;
    const links: Array<[string, string]> = [
      ['/.well-known/oauth-authorization-server', 'OAuth 2.0 authorization server metadata'],
      ['/.well-known/oauth-protected-resource', 'Protected resource metadata'],
      ['/.well-known/openid-configuration', 'OpenID Connect discovery'],
      ['/docs', 'API reference (admin and member APIs)'],
      ['/openapi.json', 'Admin API contract (OpenAPI)'],
      ['/auth.md', 'Guide for agents'],
      [CONNECTED_APPS_PATHS.list, 'Your connected apps (applications you approved, and disconnecting them)'],
    ];
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = layout(
      site.name,
      html`<h1>${site.name}</h1>
${site.description ? html`<p>${site.description}</p>` : ''}
<p>This origin, <code>${site.origin}</code>, is one school site. Members sign in through OAuth 2.0 and read their own data at <code>${graphqlPath}</code>; agents use <code>/mcp</code>.</p>
<ul>
${joinHtml(links.map(([href, text]) => html`<li><a href="${safeUrl(href)}">${text}</a></li>`), '\n')}
</ul>`,
    );
  };
}
