import type { McpUiResourceMeta, McpUiToolMeta } from '@modelcontextprotocol/ext-apps';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { Tool } from '@modelcontextprotocol/server';
import { defineResource, type McpResource } from '../resource.js';
import type { Site } from '../../sites/sites.js';

/**
 * What a view declares to the host (`_meta.ui`, MCP Apps): no domain of any kind, so the host's sandbox allows the
 * view no connection, no resource, no frame and only its own base URL; no permission (camera, microphone, …); a
 * border, since the view draws a plain table with no frame of its own.
 */
export const VIEW_UI_META: McpUiResourceMeta = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

/** The view's HTML changes only with a new version of the server; it holds no member data. */
const VIEW_TTL_MS = 60 * 60_000;

export interface ViewResourceSpec {
  name: string;
  title: string;
  description: string;
  /** `/views/my-courses`: the view's URI is `ui://{host}{path}`. */
  path: string;
  html: string;
}

/**
 * A view as an MCP resource: `ui://{host}/views/…`, `text/html;profile=mcp-app`, the `_meta.ui` above on the listing,
 * on the read result and on the content item (hosts read it from the content item first). It needs `account:read`
 * like the tools it shows: the HTML carries no data, but only a member who may call those tools has a use for it.
 */
export function defineViewResource(spec: ViewResourceSpec): McpResource {
  const _meta = { ui: VIEW_UI_META };
  return defineResource({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    mimeType: RESOURCE_MIME_TYPE,
    scheme: 'ui',
    path: spec.path,
    scopes: ['account:read'],
    _meta,
    ttlMs: VIEW_TTL_MS,
    async read(_context, uri) {
      return [{ uri, mimeType: RESOURCE_MIME_TYPE, text: spec.html, _meta }];
    },
  });
}

/**
 * A tool's link to its view (`_meta` of the tool definition), for a school: `ui.resourceUri`, and the flat
 * `ui/resourceUri` key that hosts of the extension's first drafts read (the extension's own server helper sets both).
 * Built per site, since the URI names the school's host.
 */
export function viewLink(view: McpResource): (site: Site) => NonNullable<Tool['_meta']> {
  return (site) => {
    const resourceUri = view.uri(site);
    const ui: McpUiToolMeta = { resourceUri };
    return { ui, [RESOURCE_URI_META_KEY]: resourceUri };
  };
}
