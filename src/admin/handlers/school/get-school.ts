import type { AdminHandler } from '../../api/types.js';
import { etagOf } from '../../api/etag.js';
import { getSite } from '../../../sites/sites.js';
import { schoolRepresentation } from './representation.js';

/** GET /school (school:read): the settings of the site of the request's origin. */
export const getSchool: AdminHandler<'getSchool'> = async ({ db, site }) => {
  const current = await getSite(db, site.id);
  return { status: 200, body: schoolRepresentation(current), headers: { ETag: etagOf(current.version) } };
};
