import type { Resolvers } from '../../../../generated/graphql/resolvers.js';
import { ConsultingMeeting } from './consulting-meeting/index.js';
import { markAllNotificationsRead } from './mutation/mark-all-notifications-read.js';
import { markNotificationRead } from './mutation/mark-notification-read.js';
import { updateNotificationSubscription } from './mutation/update-notification-subscription.js';
import { Notification } from './notification/index.js';
import { Payment } from './payment/index.js';
import { consultingMeetings } from './viewer/consulting-meetings.js';
import { notificationSubscriptions } from './viewer/notification-subscriptions.js';
import { notifications } from './viewer/notifications.js';
import { payments } from './viewer/payments.js';
import { unreadNotificationCount } from './viewer/unread-notification-count.js';

/**
 * Variant A's additions (schema/variant-a/): the viewer's meetings, payments and notification inbox, and the three
 * notification mutations. Thin: every field calls the domain layer in src/member/ with the request's context.
 */
export const variantAResolvers: Resolvers = {
  Viewer: { consultingMeetings, payments, notifications, unreadNotificationCount, notificationSubscriptions },
  ConsultingMeeting,
  Payment,
  Notification,
  Mutation: { markNotificationRead, markAllNotificationsRead, updateNotificationSubscription },
};
