import type { Middleware } from 'koa';
import { ACCOUNT_SCOPES } from '../graphql/scope-gate.js';
import { memberSchemaDocumentPath } from '../graphql/schema-document.js';
import { buildMemberSchema } from '../graphql/schema.js';
import type { SiteState } from '../http/state.js';
import { setDocsPageHeaders, STATIC_PAGE_CSP } from './headers.js';
import { html, joinHtml, safeUrl } from '../http/html.js';
import { docsPage } from './layout.js';
import { DOCS_PATHS } from './paths.js';
import { renderMemberApiReference } from './member-api-reference.js';
import type { VariantProfile } from '../variant.js';

/**
 * GET /docs/member-api: the member GraphQL API reference of this deployment, rendered at start-up from the
 * same schema the endpoint runs (the schema folders of the deployment's variant profile), so it changes only with the
 * SDL. Each request adds the site's name and endpoint URL around it.
 */
export function memberApiPage(variant: VariantProfile): Middleware<SiteState> {
  const { schema, scopes } = buildMemberSchema(variant);
  const reference = renderMemberApiReference(schema, scopes);
  const path = variant.memberGraphql.path;
  const sdlPath = memberSchemaDocumentPath(variant);
  const scopeList = joinHtml(ACCOUNT_SCOPES.map((scope) => html`<code>${scope}</code>`), ' and ');
  return async (ctx) => {
    const { site } = ctx.state;
    const endpoint = `${site.origin}${path}`;
    ctx.type = 'text/html; charset=utf-8';
    setDocsPageHeaders(ctx, STATIC_PAGE_CSP);
    ctx.body = docsPage(
      site,
      'docs-member-api',
      'Member API reference',
      html`<h1>Member API reference</h1>
<p>The member GraphQL API of <strong>${site.name}</strong>: the signed-in member's own data at this site.</p>
<h2>Endpoint and authentication</h2>
<ul>
<li>Endpoint: <code>POST ${endpoint}</code> with a JSON body <code>{"query": …, "variables": …}</code> (GraphQL over HTTP; <code>GET</code> for queries).</li>
<li>Every request sends <code>Authorization: Bearer &lt;access token&gt;</code>. The token comes from this site's OAuth 2.0 authorization server (Authorization Code with PKCE), issued to a member client for a member who signed in, with <code>resource=${site.origin}</code>. There is no anonymous access.</li>
<li>Scopes: ${scopeList}. Each field that needs one shows it below (the schema's <code>@requiresScope</code> directive).</li>
<li>How to get a token, step by step: <a href="/auth.md">the agent guide</a>.</li>
<li>Try it in the browser: <a href="${DOCS_PATHS.memberApiExplorer}">the explorer</a> (GraphiQL; paste a token in its Headers tab).</li>
<li>The schema as SDL, for code generators (no token needed): <a href="${safeUrl(sdlPath)}">${sdlPath}</a>.</li>
</ul>
<p>Deployment variant ${variant.name}. This page is generated from the schema the server runs.</p>
${reference}`,
    );
  };
}
