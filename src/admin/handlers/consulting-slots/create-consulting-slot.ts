import { createSlot } from '../../../scheduling/consulting.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { slotRepresentation } from './representation.js';

/** POST /consulting-services/{serviceId}/slots (events:write): new weekly availability; defaults from the service and the school. */
export const createConsultingSlot: AdminHandler<'createConsultingSlot'> = async ({ db, site, baseUrl, path, body }) => {
  const slot = await createSlot(db, site, path.serviceId, body);
  return {
    status: 201,
    body: slotRepresentation(slot),
    headers: { ETag: etagOf(slot.version), Location: `${baseUrl}/consulting-services/${path.serviceId}/slots/${slot.id}` },
  };
};
