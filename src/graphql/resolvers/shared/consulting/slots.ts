import type { ConsultingServiceResolvers } from '../../../../../generated/graphql/resolvers.js';
import { slotsOfService } from '../../../../member/services.js';

/** ConsultingService.slots: the recurring weekly availability; one query for every service. */
export const slots: NonNullable<ConsultingServiceResolvers['slots']> = (service, _args, context) => slotsOfService(context, service.id);
