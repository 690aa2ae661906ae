import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { unreadNotificationCount as countUnread } from '../../../../member/notifications.js';

/** `Viewer.unreadNotificationCount`: the badge number. */
export const unreadNotificationCount: NonNullable<ViewerResolvers['unreadNotificationCount']> = (_viewer, _args, ctx) => countUnread(ctx);
