import type { components } from '../../../../generated/admin-api.js';
import type { SlotRecord } from '../../../scheduling/consulting.js';

export type ConsultingSlot = components['schemas']['ConsultingSlot'];

export function slotRepresentation(slot: SlotRecord): ConsultingSlot {
  return {
    id: slot.id,
    serviceId: slot.serviceId,
    weekday: slot.weekday,
    startTime: slot.startTime,
    durationMinutes: slot.durationMinutes,
    timezone: slot.timezone,
    capacity: slot.capacity,
    hostUserId: slot.hostUserId,
    validFrom: slot.validFrom?.toISOString() ?? null,
    validUntil: slot.validUntil?.toISOString() ?? null,
    createdAt: slot.createdAt.toISOString(),
    updatedAt: slot.updatedAt.toISOString(),
  };
}
