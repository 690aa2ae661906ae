import type { MutationResolvers } from '../../../../../generated/graphql/resolvers.js';
import { markAllNotificationsRead as markAllRead, unreadNotificationCount } from '../../../../member/notifications.js';

/** `Mutation.markAllNotificationsRead`: idempotent; respects `createdAtOrBefore`. */
export const markAllNotificationsRead: NonNullable<MutationResolvers['markAllNotificationsRead']> = async (_root, args, ctx) => {
  const bound = args.input?.createdAtOrBefore;
  const { markedCount } = await markAllRead(ctx, { createdAtOrBefore: bound === null || bound === undefined ? null : new Date(bound) });
  return { markedCount, unreadNotificationCount: await unreadNotificationCount(ctx) };
};
