import type { components } from '../../../../generated/admin-api.js';
import type { ServiceRecord } from '../../../scheduling/consulting.js';

export type ConsultingService = components['schemas']['ConsultingService'];

export function serviceRepresentation(service: ServiceRecord): ConsultingService {
  return {
    id: service.id,
    title: service.title,
    description: service.description,
    courseIds: service.courseIds,
    durationMinutes: service.durationMinutes,
    capacity: service.capacity,
    price: service.price,
    status: service.status,
    createdAt: service.createdAt.toISOString(),
    updatedAt: service.updatedAt.toISOString(),
  };
}
