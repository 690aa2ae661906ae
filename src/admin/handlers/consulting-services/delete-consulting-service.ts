import { deleteService } from '../../../scheduling/consulting.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /consulting-services/{serviceId} (events:write): only without meetings (409 `service_has_meetings`: archive it instead). */
export const deleteConsultingService: AdminHandler<'deleteConsultingService'> = async ({ db, site, path, log }) => {
  await deleteService(db, site.id, path.serviceId);
  log.info({ event: 'consulting_service_deleted', serviceId: path.serviceId }, 'Consulting service deleted');
  return { status: 204 };
};
