import { requireSlot } from '../../../scheduling/consulting.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { slotRepresentation } from './representation.js';

/** GET /consulting-services/{serviceId}/slots/{slotId} (events:read): one slot, with its ETag. */
export const getConsultingSlot: AdminHandler<'getConsultingSlot'> = async ({ db, site, path }) => {
  const slot = await requireSlot(db, site.id, path.serviceId, path.slotId);
  return { status: 200, body: slotRepresentation(slot), headers: { ETag: etagOf(slot.version) } };
};
