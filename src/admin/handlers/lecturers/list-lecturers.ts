import { listLecturers as listSiteLecturers } from '../../../courses/lecturers.js';
import type { AdminHandler } from '../../api/types.js';
import { lecturerRepresentation } from './representation.js';

/** GET /lecturers (lecturers:read): one page of the site's lecturer profiles with the courses they teach. */
export const listLecturers: AdminHandler<'listLecturers'> = async ({ db, site, query }) => {
  const page = await listSiteLecturers(db, site.id, { q: query.q }, query);
  return { status: 200, body: { data: page.lecturers.map(lecturerRepresentation), nextCursor: page.nextCursor } };
};
