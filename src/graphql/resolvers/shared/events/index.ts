import type { EventRegistrationResolvers, EventResolvers, ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { encodeNodeId } from '../../../../member/ids.js';
import { dateTime, optionalDateTime } from '../../time.js';
import { eventRegistrations } from './event-registrations.js';

export const eventViewerResolvers: ViewerResolvers = { eventRegistrations };

export const eventRegistrationResolvers: EventRegistrationResolvers = {
  id: (registration) => encodeNodeId('EventRegistration', registration.id),
  registeredAt: (registration) => dateTime(registration.registeredAt),
};

export const eventResolvers: EventResolvers = {
  id: (event) => encodeNodeId('Event', event.id),
  startAt: (event) => dateTime(event.startAt),
  endAt: (event) => optionalDateTime(event.endAt),
};
