import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { notificationSubscriptions as subscriptionsOf } from '../../../../member/notifications.js';

/** `Viewer.notificationSubscriptions`: every kind × channel with its effective value. */
export const notificationSubscriptions: NonNullable<ViewerResolvers['notificationSubscriptions']> = (_viewer, _args, ctx) => subscriptionsOf(ctx);
