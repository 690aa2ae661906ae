import { readBodyBytes } from '../../../http/body.js';
import { requireAwaitingBytes, requireUpload, storeUploadContent } from '../../../storage/uploads.js';
import { etagOf } from '../../api/etag.js';
import { AdminProblem, InvalidRequestProblem } from '../../api/problems.js';
import type { AdminHandler } from '../../api/types.js';
import { uploadRepresentation } from './representation.js';

function wrongLength(expected: number, got: string): InvalidRequestProblem {
  return new InvalidRequestProblem(`This upload slot takes exactly ${expected} bytes (its sizeBytes); the request body has ${got}.`, [{ pointer: '', message: `must be exactly ${expected} bytes` }]);
}

/**
 * PUT /storage/uploads/{uploadId}/content (storage:write): the file's bytes, in the slot's media type and exactly its
 * size. The admin API left the body unread (src/admin/api/body.ts): it is read here, never past the slot's size, and
 * only after the slot was found and is still waiting (409 upload_expired / upload_already_completed otherwise).
 */
export const uploadStorageContent: AdminHandler<'uploadStorageContent'> = async ({ db, site, path, ctx }) => {
  const upload = await requireUpload(db, site.id, path.uploadId);
  requireAwaitingBytes(upload);
  const mediaType = (ctx.request.type || '').toLowerCase();
  if (mediaType !== upload.contentType) {
    throw new AdminProblem(415, 'unsupported_media_type', `This upload slot was created for ${upload.contentType}: send the bytes with Content-Type: ${upload.contentType}.`);
  }
  const declared = ctx.request.length;
  if (declared !== undefined && declared !== upload.sizeBytes) throw wrongLength(upload.sizeBytes, `a Content-Length of ${declared}`);
  const read = await readBodyBytes(ctx.req, { limit: upload.sizeBytes });
  if (read.kind !== 'bytes') throw wrongLength(upload.sizeBytes, 'more');
  const { bytes } = read;
  if (bytes.length !== upload.sizeBytes) throw wrongLength(upload.sizeBytes, String(bytes.length));
  const stored = await storeUploadContent(db, site.id, upload.id, bytes);
  return { status: 200, body: uploadRepresentation(site.origin, stored), headers: { ETag: etagOf(stored.version) } };
};
