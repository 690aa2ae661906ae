import { requireUpload } from '../../../storage/uploads.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { uploadRepresentation } from './representation.js';

/** GET /storage/uploads/{uploadId} (storage:write): one slot and its state. */
export const getStorageUpload: AdminHandler<'getStorageUpload'> = async ({ db, site, path }) => {
  const upload = await requireUpload(db, site.id, path.uploadId);
  return { status: 200, body: uploadRepresentation(site.origin, upload), headers: { ETag: etagOf(upload.version) } };
};
