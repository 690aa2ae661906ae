import type { ConsultingServiceResolvers, ConsultingSlotResolvers, ServiceMeetingResolvers, ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { encodeNodeId } from '../../../../member/ids.js';
import { dateTime, unixSeconds } from '../../time.js';
import { consultingServices } from './consulting-services.js';
import { meetings } from './service-meetings.js';
import { courses } from './service-courses.js';
import { slots } from './slots.js';

export const consultingViewerResolvers: ViewerResolvers = { consultingServices };

export const consultingServiceResolvers: ConsultingServiceResolvers = {
  id: (service) => encodeNodeId('ConsultingService', service.id),
  courses,
  slots,
  meetings,
};

export const consultingSlotResolvers: ConsultingSlotResolvers = {
  id: (slot) => encodeNodeId('ConsultingSlot', slot.id),
};

/** Ids are per type: a ServiceMeeting never shares its id with the viewer's ConsultingMeeting for the same meeting. */
export const serviceMeetingResolvers: ServiceMeetingResolvers = {
  id: (meeting) => encodeNodeId('ServiceMeeting', meeting.id),
  startAt: (meeting) => dateTime(meeting.startAt),
  startedAt: (meeting) => unixSeconds(meeting.startAt),
  endAt: (meeting) => dateTime(meeting.endAt),
};
