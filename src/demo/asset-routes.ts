import { createHash } from 'node:crypto';
import Router, { type RouterMiddleware } from '@koa/router';
import type { SiteState } from '../http/state.js';
import { OBJECT_CSP } from '../storage/presentation.js';
import { demoAssets } from './assets.js';

/** The demo's pictures change only with a new release, and their URLs carry no version: a week, then a 304 by ETag. */
const ASSET_CACHE_CONTROL = 'public, max-age=604800';

/**
 * GET and HEAD of the demo school's pictures (src/demo/assets.ts), at exactly the paths its document links, on every
 * site's origin: they are the same everywhere and hold no site's data, so no lookup decides who gets them. Any other
 * `/assets/…` path is the 404 of an unknown path. SVG is active content, so they get the same sandboxing CSP and
 * nosniff as uploaded objects.
 *
 * `/favicon.ico`, which browsers ask every origin for on their own, answers 204 (cacheable): a site's own icon is
 * its appearance `faviconUrl`, and the log stays free of a 404 per visitor.
 */
export function demoAssetRoutes(): Router<SiteState> {
  const router = new Router<SiteState>();
  for (const [path, text] of demoAssets()) router.get(path, serveSvg(Buffer.from(text, 'utf8')));
  router.get('/favicon.ico', (ctx) => {
    ctx.status = 204;
    ctx.set('Cache-Control', ASSET_CACHE_CONTROL);
  });
  return router;
}

function serveSvg(body: Buffer): RouterMiddleware<SiteState> {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return (ctx) => {
    ctx.status = 200;
    ctx.set('Content-Type', 'image/svg+xml');
    ctx.etag = etag;
    ctx.set('Cache-Control', ASSET_CACHE_CONTROL);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', OBJECT_CSP);
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = body;
  };
}
