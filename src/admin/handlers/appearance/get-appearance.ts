import { getAppearance as readAppearance } from '../../../content/appearance.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { appearanceRepresentation } from './representation.js';

/** GET /school/appearance (appearance:read): the branding, or the defaults (ETag "v0") of a site that never set it. */
export const getAppearance: AdminHandler<'getAppearance'> = async ({ db, site }) => {
  const appearance = await readAppearance(db, site);
  return { status: 200, body: appearanceRepresentation(appearance), headers: { ETag: etagOf(appearance.version) } };
};
