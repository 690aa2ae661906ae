import type { MutationResolvers } from '../../../../../generated/graphql/resolvers.js';
import { markNotificationRead as markRead, unreadNotificationCount } from '../../../../member/notifications.js';

/** `Mutation.markNotificationRead`: idempotent; NOT_FOUND (NotFoundError) for an unknown or another member's id. */
export const markNotificationRead: NonNullable<MutationResolvers['markNotificationRead']> = async (_root, args, ctx) => {
  const notification = await markRead(ctx, args.id);
  return { notification, unreadNotificationCount: await unreadNotificationCount(ctx) };
};
