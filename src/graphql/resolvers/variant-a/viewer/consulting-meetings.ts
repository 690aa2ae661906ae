import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { listViewerMeetings } from '../../../../member/meetings.js';
import { toConnection } from '../../connection.js';

/** `Viewer.consultingMeetings`: the viewer's own bookings and study-group meetings, newest start first, at most 50 per page. */
export const consultingMeetings: NonNullable<ViewerResolvers['consultingMeetings']> = async (_viewer, args, ctx) =>
  toConnection(await listViewerMeetings(ctx, { first: args.first, after: args.after, last: args.last, before: args.before, filter: args.filter }));
