import { deleteUpload } from '../../../storage/uploads.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /storage/uploads/{uploadId} (storage:write): the slot, in any state, and its stored bytes. */
export const deleteStorageUpload: AdminHandler<'deleteStorageUpload'> = async ({ db, site, path }) => {
  await deleteUpload(db, site.id, path.uploadId);
  return { status: 204 };
};
