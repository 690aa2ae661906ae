import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { RouterMiddleware } from '@koa/router';
import type { SiteState } from '../http/state.js';
import { DOCS_PATHS } from './paths.js';
import { SWAGGER_UI_INIT_SCRIPT, SWAGGER_UI_PAGE_STYLE } from './swagger-ui-init.js';

/** The folder of the installed swagger-ui-dist package (no CDN: the files are served from here). */
export function swaggerUiDistFolder(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/**
 * The only files /docs/assets serves: Swagger UI's from the package, by name, the admin page's own script and style,
 * and the extra files a caller adds (the member API explorer's, src/docs/explorer-assets.ts).
 */
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
  'oauth2-redirect.js': 'text/javascript; charset=utf-8',
};
export const ADMIN_API_SCRIPT = 'admin-api.js';
export const ADMIN_API_STYLE = 'admin-api.css';

/**
 * A file served under /docs/assets/<name>: made by the server (`body`, kept in memory) or one of an installed package's
 * (`file`, read from disk when asked for: the browser bundles are megabytes that a server answering APIs seldom sends).
 */
export type AssetFile = { type: string; body: Buffer } | { type: string; file: string };

interface Asset {
  source: AssetFile;
  /** Bytes of the identity representation. */
  size: number;
  /** The content hash in an ETag (quoted by the handler, with `-gzip` for the gzipped representation). */
  tag: string;
  /** Short content hash: the `?v=` that makes a URL of this exact content, cached for a year. */
  version: string;
  gzipped: Buffer | null;
}

export interface DocsAssets {
  /** The URL a page links to: the asset's path with its content version. Throws for a name not served. */
  url(name: string): string;
  /** The route handler of `GET /docs/assets/:name`. */
  handler: RouterMiddleware<SiteState>;
}

function asset(source: AssetFile): Asset {
  const body = bodyOf(source);
  const hash = createHash('sha256').update(body).digest('base64url');
  return { source, size: body.length, tag: hash.slice(0, 27), version: hash.slice(0, 12), gzipped: null };
}

/** The file's bytes; an installed package's files do not change while the process runs, so its hash stays true. */
function bodyOf(source: AssetFile): Buffer {
  return 'body' in source ? source.body : fs.readFileSync(source.file);
}

/**
 * GET /docs/assets/:name: the allowlisted files, hashed once at start-up. A name that is not in the list (any other
 * file of the package, `..`, an encoded slash) is a 404; nothing is looked up on disk from the request. With the
 * current `?v=` the answer is `immutable` for a year; without it (or with a stale one) for five minutes; an ETag
 * answers revalidation with 304 either way. Text and JSON assets are gzipped on first request when the client accepts it.
 */
export function docsAssets(folder: string = swaggerUiDistFolder(), extra: ReadonlyMap<string, AssetFile> = new Map()): DocsAssets {
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(PACKAGE_FILES)) assets.set(name, asset({ file: path.join(folder, name), type }));
  assets.set(ADMIN_API_SCRIPT, asset({ body: Buffer.from(SWAGGER_UI_INIT_SCRIPT, 'utf8'), type: 'text/javascript; charset=utf-8' }));
  assets.set(ADMIN_API_STYLE, asset({ body: Buffer.from(SWAGGER_UI_PAGE_STYLE, 'utf8'), type: 'text/css; charset=utf-8' }));
  for (const [name, file] of extra) assets.set(name, asset(file));

  const handler: RouterMiddleware<SiteState> = async (ctx, next) => {
    const name = ctx.params.name ?? '';
    const found = assets.get(name);
    if (!found) return next();
    const { type } = found.source;
    const compressible = type.startsWith('text/') || type.startsWith('application/json');
    const gzip = compressible && ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    ctx.status = 200;
    ctx.type = type;
    // Each encoding is its own representation, with its own strong ETag.
    ctx.etag = gzip ? `"${found.tag}-gzip"` : `"${found.tag}"`;
    ctx.set('Cache-Control', ctx.query.v === found.version ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    if (compressible) ctx.vary('Accept-Encoding');
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    if (gzip) {
      // Compressed once, on first request, and kept: a fraction of the file's size.
      found.gzipped ??= gzipSync(bodyOf(found.source));
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = found.gzipped;
    } else if ('body' in found.source) {
      ctx.body = found.source.body;
    } else {
      ctx.body = fs.createReadStream(found.source.file);
      ctx.length = found.size;
    }
  };

  return {
    url(name) {
      const found = assets.get(name);
      if (!found) throw new Error(`not a docs asset: ${name}`);
      return `${DOCS_PATHS.assets}/${name}?v=${found.version}`;
    },
    handler,
  };
}
