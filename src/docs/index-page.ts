import type { Middleware } from 'koa';
import { OPENAPI_DOCUMENT_PATH } from '../admin/openapi-document.js';
import { AGENT_GUIDE_PATH } from '../agent-guide/endpoint.js';
import type { Variant } from '../config/config.js';
import { memberGraphqlPath } from '../graphql/endpoint.js';
import type { SiteState } from '../http/state.js';
import { OAUTH_PATHS } from '../oauth/endpoints.js';
import { setDocsPageHeaders, STATIC_PAGE_CSP } from './headers.js';
import { docsPage, escapeHtml } from './layout.js';
import { DOCS_PATHS } from './paths.js';

function list(links: ReadonlyArray<readonly [string, string, string]>): string {
  return `<ul>\n${links.map(([href, text, note]) => `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a>${note ? `: ${note}` : ''}</li>`).join('\n')}\n</ul>`;
}

/** GET /docs: what this site documents, the two API references first, then the machine-readable documents. */
export function docsIndexPage(variant: Variant): Middleware<SiteState> {
  const graphqlPath = memberGraphqlPath(variant);
  return async (ctx) => {
    const { site } = ctx.state;
    ctx.type = 'text/html; charset=utf-8';
    setDocsPageHeaders(ctx, STATIC_PAGE_CSP);
    ctx.body = docsPage(
      site,
      'docs-index',
      'API reference',
      `<h1>API reference</h1>
<p>The interfaces of <strong>${escapeHtml(site.name)}</strong> (<code>${escapeHtml(site.origin)}</code>), described from the contracts this server runs.</p>
<h2>References</h2>
${list([
  [DOCS_PATHS.adminApi, 'Admin API', `the REST API for the school's operators (<code>/api/admin/v1</code>), rendered by Swagger UI from the OpenAPI contract`],
  [DOCS_PATHS.memberApi, 'Member API', `the GraphQL API of a member's own data (<code>${escapeHtml(graphqlPath)}</code>): every type, field and the scope it needs`],
])}
<h2>Documents</h2>
${list([
  [OPENAPI_DOCUMENT_PATH, 'Admin API contract (OpenAPI 3.1, JSON)', ''],
  [AGENT_GUIDE_PATH, 'Guide for agents (Markdown)', 'how to discover, register, get a token and call the APIs'],
  [OAUTH_PATHS.authorizationServerMetadata, 'OAuth 2.0 authorization server metadata (RFC 8414)', ''],
  [OAUTH_PATHS.protectedResourceMetadata, 'Protected resource metadata (RFC 9728)', ''],
  [OAUTH_PATHS.openidConfiguration, 'OpenID Connect discovery', ''],
])}`,
    );
  };
}
