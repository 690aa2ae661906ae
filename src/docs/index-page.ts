import type { Middleware } from 'koa';
import { OPENAPI_DOCUMENT_PATH } from '../admin/openapi-document.js';
import { AGENT_GUIDE_PATH } from '../agent-guide/endpoint.js';
import type { SiteState } from '../http/state.js';
import { memberSchemaDocumentPath } from '../graphql/schema-document.js';
import { OAUTH_PATHS } from '../oauth/endpoints.js';
import { setDocsPageHeaders, STATIC_PAGE_CSP } from './headers.js';
import { html, joinHtml, safeUrl, type Html } from '../http/html.js';
import { docsPage } from './layout.js';
import { DOCS_PATHS } from './paths.js';
import type { VariantProfile } from '../variant.js';

function list(links: ReadonlyArray<readonly [string, string, Html | null]>): Html {
  const items = links.map(([href, text, note]) => html`<li><a href="${safeUrl(href)}">${text}</a>${note && html`: ${note}`}</li>`);
  return html`<ul>\n${joinHtml(items, '\n')}\n</ul>`;
}

/** GET /docs: what this site documents, the two API references first, then the machine-readable documents. */
export function docsIndexPage(variant: VariantProfile): Middleware<SiteState> {
  const graphqlPath = variant.memberGraphql.path;
  return async (ctx) => {
    const { site } = ctx.state;
    ctx.type = 'text/html; charset=utf-8';
    setDocsPageHeaders(ctx, STATIC_PAGE_CSP);
    ctx.body = docsPage(
      site,
      'docs-index',
      'API reference',
      html`<h1>API reference</h1>
<p>The interfaces of <strong>${site.name}</strong> (<code>${site.origin}</code>), described from the contracts this server runs.</p>
<h2>References</h2>
${list([
  [DOCS_PATHS.adminApi, 'Admin API', html`the REST API for the school's operators (<code>/api/admin/v1</code>), rendered by Swagger UI from the OpenAPI contract`],
  [DOCS_PATHS.memberApi, 'Member API', html`the GraphQL API of a member's own data (<code>${graphqlPath}</code>): every type, field and the scope it needs`],
  [DOCS_PATHS.memberApiExplorer, 'Member API explorer', html`GraphiQL in the browser: run queries with a member access token`],
])}
<h2>Documents</h2>
${list([
  [OPENAPI_DOCUMENT_PATH, 'Admin API contract (OpenAPI 3.1, JSON)', null],
  [memberSchemaDocumentPath(variant), 'Member API schema (GraphQL SDL)', html`what code generators read; no token needed`],
  [AGENT_GUIDE_PATH, 'Guide for agents (Markdown)', html`how to discover, register, get a token and call the APIs`],
  [OAUTH_PATHS.authorizationServerMetadata, 'OAuth 2.0 authorization server metadata (RFC 8414)', null],
  [OAUTH_PATHS.protectedResourceMetadata, 'Protected resource metadata (RFC 9728)', null],
  [OAUTH_PATHS.openidConfiguration, 'OpenID Connect discovery', null],
])}`,
    );
  };
}
