import type { components } from '../../../../generated/admin-api.js';
import type { EventRecord } from '../../../scheduling/events.js';

export type Event = components['schemas']['Event'];

export function eventRepresentation(event: EventRecord): Event {
  return {
    id: event.id,
    slug: event.slug,
    title: event.title,
    description: event.description,
    startsAt: event.startsAt.toISOString(),
    endsAt: event.endsAt.toISOString(),
    timezone: event.timezone,
    format: event.format,
    location: event.location,
    onlineUrl: event.onlineUrl,
    capacity: event.capacity,
    price: event.price,
    status: event.status,
    isPublic: event.isPublic,
    registeredCount: event.registeredCount,
    createdAt: event.createdAt.toISOString(),
    updatedAt: event.updatedAt.toISOString(),
  };
}
