import type { ConsultingMeetingResolvers } from '../../../../../generated/graphql/resolvers.js';
import { dateTime } from '../../time.js';
import { attendeesCount } from './attendees-count.js';
import { service } from './service.js';
import { studyGroup } from './study-group.js';

/** `ConsultingMeeting`: plain fields come from the domain record (id, kind, state, startedAt, roomUrl). */
export const ConsultingMeeting: ConsultingMeetingResolvers = {
  startAt: (meeting) => dateTime(meeting.startsAt),
  endAt: (meeting) => dateTime(meeting.endsAt),
  attendeesCount,
  service,
  studyGroup,
};
