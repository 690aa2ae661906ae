import { listSlots } from '../../../scheduling/consulting.js';
import type { AdminHandler } from '../../api/types.js';
import { slotRepresentation } from './representation.js';

/** GET /consulting-services/{serviceId}/slots (events:read): one keyset page of the service's weekly slots. */
export const listConsultingSlots: AdminHandler<'listConsultingSlots'> = async ({ db, site, path, query }) => {
  const page = await listSlots(db, site.id, path.serviceId, query);
  return { status: 200, body: { data: page.slots.map(slotRepresentation), nextCursor: page.nextCursor } };
};
