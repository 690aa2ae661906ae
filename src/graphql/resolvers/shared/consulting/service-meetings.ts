import type { ConsultingServiceResolvers } from '../../../../../generated/graphql/resolvers.js';
import { listServiceMeetings } from '../../../../member/services.js';
import { toConnection } from '../../connection.js';

/**
 * ConsultingService.meetings: everyone's reserved meetings on the service, newest start first, without room links or
 * anything marking the viewer's; every service's page costs two queries together.
 */
export const meetings: NonNullable<ConsultingServiceResolvers['meetings']> = async (service, { filter, ...args }, context) =>
  toConnection(await listServiceMeetings(context, service.id, args, filter));
