import { listServices } from '../../../scheduling/consulting.js';
import type { AdminHandler } from '../../api/types.js';
import { serviceRepresentation } from './representation.js';

/** GET /consulting-services (events:read): one keyset page of the site's consulting services. */
export const listConsultingServices: AdminHandler<'listConsultingServices'> = async ({ db, site, query }) => {
  const page = await listServices(db, site.id, { status: query.status, courseId: query.courseId }, query);
  return { status: 200, body: { data: page.services.map(serviceRepresentation), nextCursor: page.nextCursor } };
};
