import type { ConsultingMeetingResolvers } from '../../../../../generated/graphql/resolvers.js';
import { consultingServiceById } from '../../../../member/services.js';

/** `ConsultingMeeting.service`: the service of a consulting-slot meeting (batched); null for study groups or a removed service. */
export const service: NonNullable<ConsultingMeetingResolvers['service']> = (meeting, _args, ctx) =>
  meeting.serviceId === null ? null : consultingServiceById(ctx, meeting.serviceId);
