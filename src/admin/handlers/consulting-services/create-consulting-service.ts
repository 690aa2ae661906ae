import { createService } from '../../../scheduling/consulting.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { serviceRepresentation } from './representation.js';

/** POST /consulting-services (events:write): a new service offered against courses of this site. */
export const createConsultingService: AdminHandler<'createConsultingService'> = async ({ db, site, baseUrl, body }) => {
  const service = await createService(db, site.id, body);
  return { status: 201, body: serviceRepresentation(service), headers: { ETag: etagOf(service.version), Location: `${baseUrl}/consulting-services/${service.id}` } };
};
