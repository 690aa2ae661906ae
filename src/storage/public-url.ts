import { objectFileName } from './uploads.js';

/**
 * Where a site serves its uploaded objects: `/uploads/<uploadId>/<random>.<ext>` on the site's own origin
 * (src/uploads/serve.ts). The id finds the row by its primary key; the random file name, the last segment of the object
 * key, is what makes the URL unguessable, so neighbouring ids reveal nothing.
 */
export const UPLOADS_PATH = '/uploads';

/** The public URL of an upload: answered once the upload is `uploaded`, 404 before and after it is deleted. */
export function uploadPublicUrl(origin: string, upload: { id: number; objectKey: string }): string {
  return `${origin}${UPLOADS_PATH}/${upload.id}/${objectFileName(upload.objectKey)}`;
}
