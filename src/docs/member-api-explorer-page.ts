import type { Middleware } from 'koa';
import { AGENT_GUIDE_PATH } from '../agent-guide/endpoint.js';
import { memberSchemaDocumentPath } from '../graphql/schema-document.js';
import { html, safeUrl } from '../http/html.js';
import type { SiteState } from '../http/state.js';
import type { VariantProfile } from '../variant.js';
import type { DocsAssets } from './assets.js';
import { EXPLORER_FILES } from './explorer-assets.js';
import { EXPLORER_PAGE_CSP, setDocsPageHeaders } from './headers.js';
import { DOCS_PATHS } from './paths.js';

/**
 * GET /docs/member-api/explorer: GraphiQL over this site's member GraphQL endpoint, every file from /docs/assets on
 * this origin (no CDN). The schema comes from this origin too, so the documentation explorer and completion work
 * without a token; running a query needs a member access token, pasted into the Headers tab. Without JavaScript it
 * links the SDL and the reference.
 */
export function memberApiExplorerPage(variant: VariantProfile, assets: DocsAssets): Middleware<SiteState> {
  const endpointPath = variant.memberGraphql.path;
  const sdlPath = memberSchemaDocumentPath(variant);
  return async (ctx) => {
    const { site } = ctx.state;
    ctx.type = 'text/html; charset=utf-8';
    setDocsPageHeaders(ctx, EXPLORER_PAGE_CSP);
    ctx.body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Member API explorer · ${site.name}</title>
<link rel="stylesheet" href="${safeUrl(assets.url(EXPLORER_FILES.graphiqlStyle))}">
<link rel="stylesheet" href="${safeUrl(assets.url(EXPLORER_FILES.style))}">
</head>
<body data-page="docs-member-api-explorer">
<p class="docs-chrome"><a href="/">${site.name}</a> · <a href="${DOCS_PATHS.index}">API reference</a> · <a href="${DOCS_PATHS.memberApi}">Member API</a> · Explorer<br>
Queries run against <code>${site.origin}${endpointPath}</code> as the member whose access token you paste in the <strong>Headers</strong> tab (<code>"Authorization": "Bearer …"</code>). A token comes from this site's OAuth 2.0 authorization server, for a member who signed in: how to get one is in <a href="${AGENT_GUIDE_PATH}">the agent guide</a> and <a href="${DOCS_PATHS.memberApi}">the member API reference</a>. The token stays in this tab; nothing is stored. The schema itself needs no token: <a href="${safeUrl(sdlPath)}">${sdlPath}</a>.</p>
<noscript><p class="docs-chrome">The explorer needs JavaScript. The schema is at <a href="${safeUrl(sdlPath)}">${sdlPath}</a> and described at <a href="${DOCS_PATHS.memberApi}">${DOCS_PATHS.memberApi}</a>.</p></noscript>
<div id="graphiql" data-endpoint="${endpointPath}" data-schema-url="${safeUrl(assets.url(EXPLORER_FILES.schema))}"></div>
<script src="${safeUrl(assets.url(EXPLORER_FILES.react))}"></script>
<script src="${safeUrl(assets.url(EXPLORER_FILES.reactDom))}"></script>
<script src="${safeUrl(assets.url(EXPLORER_FILES.graphiqlScript))}"></script>
<script src="${safeUrl(assets.url(EXPLORER_FILES.script))}"></script>
</body>
</html>
`.toString();
  };
}
