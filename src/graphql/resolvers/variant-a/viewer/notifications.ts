import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { listViewerNotifications } from '../../../../member/notifications.js';
import { toConnection } from '../../connection.js';

/** `Viewer.notifications`: the inbox, newest first. */
export const notifications: NonNullable<ViewerResolvers['notifications']> = async (_viewer, args, ctx) =>
  toConnection(await listViewerNotifications(ctx, { first: args.first, after: args.after, last: args.last, before: args.before, filter: args.filter }));
