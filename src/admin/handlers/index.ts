import type { AdminHandlers } from '../api/types.js';
import { getMcpConnections } from './mcp-connections/get-mcp-connections.js';
import { updateMcpConnections } from './mcp-connections/update-mcp-connections.js';
import { createOAuthApplication } from './oauth-applications/create-oauth-application.js';
import { deleteOAuthApplication } from './oauth-applications/delete-oauth-application.js';
import { getOAuthApplication } from './oauth-applications/get-oauth-application.js';
import { listOAuthApplications } from './oauth-applications/list-oauth-applications.js';
import { reviewOAuthApplication } from './oauth-applications/review-oauth-application.js';
import { rotateOAuthApplicationSecret } from './oauth-applications/rotate-oauth-application-secret.js';
import { updateOAuthApplication } from './oauth-applications/update-oauth-application.js';
import { getSchool } from './school/get-school.js';
import { updateSchool } from './school/update-school.js';

// ---- imports: area courses ----

// ---- imports: area people ----

// ---- imports: area commerce ----

// ---- imports: area scheduling ----
import { createConsultingService } from './consulting-services/create-consulting-service.js';
import { deleteConsultingService } from './consulting-services/delete-consulting-service.js';
import { getConsultingService } from './consulting-services/get-consulting-service.js';
import { listConsultingServices } from './consulting-services/list-consulting-services.js';
import { updateConsultingService } from './consulting-services/update-consulting-service.js';
import { createConsultingSlot } from './consulting-slots/create-consulting-slot.js';
import { deleteConsultingSlot } from './consulting-slots/delete-consulting-slot.js';
import { getConsultingSlot } from './consulting-slots/get-consulting-slot.js';
import { listConsultingSlots } from './consulting-slots/list-consulting-slots.js';
import { updateConsultingSlot } from './consulting-slots/update-consulting-slot.js';
import { createEventRegistration } from './event-registrations/create-event-registration.js';
import { getEventRegistration } from './event-registrations/get-event-registration.js';
import { listEventRegistrations } from './event-registrations/list-event-registrations.js';
import { updateEventRegistration } from './event-registrations/update-event-registration.js';
import { cancelEvent } from './events/cancel-event.js';
import { createEvent } from './events/create-event.js';
import { deleteEvent } from './events/delete-event.js';
import { getEvent } from './events/get-event.js';
import { listEvents } from './events/list-events.js';
import { updateEvent } from './events/update-event.js';
import { cancelMeeting } from './meetings/cancel-meeting.js';
import { confirmMeeting } from './meetings/confirm-meeting.js';
import { createConsultingMeeting } from './meetings/create-consulting-meeting.js';
import { getMeeting } from './meetings/get-meeting.js';
import { listMeetings } from './meetings/list-meetings.js';

// ---- imports: area content ----

/** Every operation of openapi/admin.yaml, by operationId; one file per operation under handlers/<resource>/. */
export const ADMIN_HANDLERS: AdminHandlers = {
  getSchool,
  updateSchool,
  getMcpConnections,
  updateMcpConnections,
  listOAuthApplications,
  createOAuthApplication,
  getOAuthApplication,
  updateOAuthApplication,
  deleteOAuthApplication,
  rotateOAuthApplicationSecret,
  reviewOAuthApplication,

  // ---- handlers: area courses ----

  // ---- handlers: area people ----

  // ---- handlers: area commerce ----

  // ---- handlers: area scheduling ----
  listEvents,
  createEvent,
  getEvent,
  updateEvent,
  deleteEvent,
  cancelEvent,
  listEventRegistrations,
  createEventRegistration,
  getEventRegistration,
  updateEventRegistration,
  listConsultingServices,
  createConsultingService,
  getConsultingService,
  updateConsultingService,
  deleteConsultingService,
  listConsultingSlots,
  createConsultingSlot,
  getConsultingSlot,
  updateConsultingSlot,
  deleteConsultingSlot,
  createConsultingMeeting,
  listMeetings,
  getMeeting,
  confirmMeeting,
  cancelMeeting,

  // ---- handlers: area content ----
};
