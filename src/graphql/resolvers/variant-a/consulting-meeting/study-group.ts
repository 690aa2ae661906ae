import type { ConsultingMeetingResolvers } from '../../../../../generated/graphql/resolvers.js';
import { viewerStudyGroup } from '../../../../member/meetings.js';

/** `ConsultingMeeting.studyGroup`: set for study-group meetings (batched). */
export const studyGroup: NonNullable<ConsultingMeetingResolvers['studyGroup']> = async (meeting, _args, ctx) => {
  if (meeting.studyGroupId === null) return null;
  const group = await viewerStudyGroup(ctx, meeting.studyGroupId);
  return group ? { id: group.id, name: group.name } : null;
};
