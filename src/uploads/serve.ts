import Router, { type RouterMiddleware } from '@koa/router';
import type { Database } from '../db/connection.js';
import type { SiteState } from '../http/state.js';
import { parseByteRange, type ByteRange } from '../storage/byte-range.js';
import { downloadName, OBJECT_CSP, presentationOf } from '../storage/presentation.js';
import { UPLOADS_PATH } from '../storage/public-url.js';
import { findServedObject, objectByteStream } from '../storage/served-objects.js';

/** An object never changes once uploaded (a second upload is refused) and is only deleted: an hour bounds how long a deleted one stays in caches. */
const CACHE_CONTROL = 'public, max-age=3600';
const UPLOAD_ID = /^[1-9][0-9]{0,14}$/;
/** The file name of an object key: 32 random hex digits and an extension (src/storage/uploads.ts). */
const FILE_NAME = /^[0-9a-f]{32}\.[a-z0-9]{1,10}$/;

/**
 * GET and HEAD `/uploads/:uploadId/:name`: a site's uploaded object, on its own origin, with a strong ETag (the upload
 * and its version: the bytes under them never change) answering If-None-Match with 304, Last-Modified, and one byte
 * range at a time (206, If-Range by ETag) for media players. Anything but an uploaded object of this site falls
 * through to the 404 of an unknown path. docs/admin-content.md, "Serving the objects".
 */
export function storageRoutes(db: Database): Router<SiteState> {
  const router = new Router<SiteState>();
  router.get(`${UPLOADS_PATH}/:uploadId/:name`, serveObject(db));
  return router;
}

function serveObject(db: Database): RouterMiddleware<SiteState> {
  return async (ctx, next) => {
    const { uploadId = '', name = '' } = ctx.params;
    if (!UPLOAD_ID.test(uploadId) || !FILE_NAME.test(name)) return next();
    const object = await findServedObject(db, ctx.state.site.id, Number(uploadId), name);
    if (!object) return next();
    const shown = presentationOf(object.storedType, object.objectKey);
    const etag = `"upload-${object.id}-v${object.version}"`;
    ctx.status = 200;
    ctx.set('Content-Type', shown.contentType);
    ctx.attachment(downloadName(object.filename, shown.extension), { type: shown.disposition });
    ctx.etag = etag;
    ctx.lastModified = object.uploadedAt;
    ctx.set('Cache-Control', CACHE_CONTROL);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', OBJECT_CSP);
    // Meant to be embedded (course covers, avatars), also by the school's apps on other origins.
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('Accept-Ranges', 'bytes');
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    // A Range applies to GET only; with If-Range, only while the client's copy is this one (compared by ETag).
    const ifRange = ctx.get('If-Range');
    const requested = ctx.method === 'GET' && (ifRange === '' || ifRange === etag) ? parseByteRange(ctx.get('Range'), object.sizeBytes) : null;
    if (requested === 'unsatisfiable') {
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${object.sizeBytes}`);
      ctx.remove('Content-Type');
      ctx.remove('Content-Disposition');
      ctx.body = '';
      return;
    }
    const range: ByteRange = requested ?? { first: 0, last: object.sizeBytes - 1 };
    if (requested) {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${range.first}-${range.last}/${object.sizeBytes}`);
    }
    const body = objectByteStream(db, object, range);
    body.once('error', (error) => ctx.state.log.warn({ err: error, uploadId: object.id }, 'an uploaded object could not be read to the end'));
    ctx.body = body;
    ctx.length = range.last - range.first + 1;
  };
}
