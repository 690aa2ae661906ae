import { createUpload } from '../../../storage/uploads.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { uploadRepresentation, uploadUrl } from './representation.js';

/** POST /storage/uploads (storage:write): a pending slot with a random object key and the URL to PUT the bytes to. */
export const createStorageUpload: AdminHandler<'createStorageUpload'> = async ({ db, site, principal, body }) => {
  const upload = await createUpload(db, site.id, { filename: body.filename, contentType: body.contentType, sizeBytes: body.sizeBytes, createdByClientRef: principal.token.client.ref });
  return { status: 201, body: uploadRepresentation(site.origin, upload), headers: { ETag: etagOf(upload.version), Location: uploadUrl(site.origin, upload.id) } };
};
