import type { ConsultingMeetingResolvers } from '../../../../../generated/graphql/resolvers.js';
import { meetingAttendeesCount } from '../../../../member/meetings.js';

/** `ConsultingMeeting.attendeesCount`: seats for a consulting slot, roster size for a study group (batched). */
export const attendeesCount: NonNullable<ConsultingMeetingResolvers['attendeesCount']> = (meeting, _args, ctx) => meetingAttendeesCount(ctx, meeting);
