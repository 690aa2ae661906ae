import { requireService } from '../../../scheduling/consulting.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { serviceRepresentation } from './representation.js';

/** GET /consulting-services/{serviceId} (events:read): one service of this site. */
export const getConsultingService: AdminHandler<'getConsultingService'> = async ({ db, site, path }) => {
  const service = await requireService(db, site.id, path.serviceId);
  return { status: 200, body: serviceRepresentation(service), headers: { ETag: etagOf(service.version) } };
};
