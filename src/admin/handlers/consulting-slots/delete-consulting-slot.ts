import { deleteSlot } from '../../../scheduling/consulting.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /consulting-services/{serviceId}/slots/{slotId} (events:write): its meetings stay, with slotId null. */
export const deleteConsultingSlot: AdminHandler<'deleteConsultingSlot'> = async ({ db, site, path, log }) => {
  const { detachedMeetings } = await deleteSlot(db, site.id, path.serviceId, path.slotId);
  log.info({ event: 'consulting_slot_deleted', serviceId: path.serviceId, slotId: path.slotId, detachedMeetings }, 'Consulting slot deleted');
  return { status: 204 };
};
