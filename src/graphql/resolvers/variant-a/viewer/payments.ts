import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { listViewerPayments } from '../../../../member/payments.js';
import { toConnection } from '../../connection.js';

/** `Viewer.payments`: one node per payment, newest first, at most 50 per page. */
export const payments: NonNullable<ViewerResolvers['payments']> = async (_viewer, args, ctx) =>
  toConnection(await listViewerPayments(ctx, { first: args.first, after: args.after, last: args.last, before: args.before }));
