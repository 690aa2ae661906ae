import { updateSlot } from '../../../scheduling/consulting.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { slotRepresentation } from './representation.js';

/** PATCH /consulting-services/{serviceId}/slots/{slotId} (events:write): merge patch at the version If-Match names. */
export const updateConsultingSlot: AdminHandler<'updateConsultingSlot'> = async ({ db, site, path, headers, body }) => {
  const slot = await updateSlot(db, site.id, path.serviceId, path.slotId, body, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: slotRepresentation(slot), headers: { ETag: etagOf(slot.version) } };
};
