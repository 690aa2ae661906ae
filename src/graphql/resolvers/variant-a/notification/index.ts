import type { NotificationResolvers } from '../../../../../generated/graphql/resolvers.js';
import { dateTime, optionalDateTime } from '../../time.js';

/** `Notification`: plain fields come from the domain record. */
export const Notification: NotificationResolvers = {
  createdAt: (notification) => dateTime(notification.createdAt),
  readAt: (notification) => optionalDateTime(notification.readAt),
  isRead: (notification) => notification.readAt !== null,
};
