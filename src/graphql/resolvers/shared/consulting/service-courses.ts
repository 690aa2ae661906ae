import type { ConsultingServiceResolvers } from '../../../../../generated/graphql/resolvers.js';
import { coursesOfService } from '../../../../member/services.js';

/** ConsultingService.courses: the viewer's delivered courses the service is offered against; one query for every service. */
export const courses: NonNullable<ConsultingServiceResolvers['courses']> = (service, _args, context) => coursesOfService(context, service.id);
