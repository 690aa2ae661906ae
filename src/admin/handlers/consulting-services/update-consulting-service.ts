import { updateService } from '../../../scheduling/consulting.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { serviceRepresentation } from './representation.js';

/** PATCH /consulting-services/{serviceId} (events:write): merge patch at the version If-Match names; courseIds replaces the list. */
export const updateConsultingService: AdminHandler<'updateConsultingService'> = async ({ db, site, path, headers, body }) => {
  const service = await updateService(db, site.id, path.serviceId, body, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: serviceRepresentation(service), headers: { ETag: etagOf(service.version) } };
};
