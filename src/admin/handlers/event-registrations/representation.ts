import type { components } from '../../../../generated/admin-api.js';
import type { RegistrationRecord } from '../../../scheduling/registrations.js';

export type EventRegistration = components['schemas']['EventRegistration'];

export function registrationRepresentation(registration: RegistrationRecord): EventRegistration {
  return {
    id: registration.id,
    eventId: registration.eventId,
    member: registration.member,
    state: registration.state,
    ticketCode: registration.ticketCode,
    registeredAt: registration.registeredAt.toISOString(),
    canceledAt: registration.canceledAt?.toISOString() ?? null,
    createdAt: registration.createdAt.toISOString(),
    updatedAt: registration.updatedAt.toISOString(),
  };
}
