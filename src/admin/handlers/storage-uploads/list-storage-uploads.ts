import { listUploads } from '../../../storage/uploads.js';
import type { AdminHandler } from '../../api/types.js';
import { uploadRepresentation } from './representation.js';

/** GET /storage/uploads (storage:write, the only storage scope): one keyset page of the site's upload slots. */
export const listStorageUploads: AdminHandler<'listStorageUploads'> = async ({ db, site, query }) => {
  const page = await listUploads(db, site.id, { state: query.state }, query);
  return { status: 200, body: { data: page.uploads.map((upload) => uploadRepresentation(site.origin, upload)), nextCursor: page.nextCursor } };
};
