import type { MutationResolvers } from '../../../../../generated/graphql/resolvers.js';
import { updateNotificationSubscription as updateSubscription } from '../../../../member/notifications.js';

/** `Mutation.updateNotificationSubscription`: upsert of one kind × channel preference; idempotent. */
export const updateNotificationSubscription: NonNullable<MutationResolvers['updateNotificationSubscription']> = async (_root, args, ctx) => ({
  subscription: await updateSubscription(ctx, { kind: args.input.kind, channel: args.input.channel, enabled: args.input.enabled }),
});
