import { z } from 'zod';
import { NOTIFICATION_KINDS, type NotificationKind, type ViewerNotification } from '../../../member/notifications.js';
import { dateTime as formatDateTime, optionalDateTime } from '../../format.js';
import { dateTime } from '../../schemas.js';

export const notificationKind = z.enum(NOTIFICATION_KINDS as [NotificationKind, ...NotificationKind[]]);

export const notificationOutput = z.object({
  id: z.string().describe('Opaque notification id; pass it to mark_notification_read.'),
  kind: notificationKind,
  title: z.string(),
  body: z.string().describe('"" when the notification has no body.'),
  url: z.string().nullable().describe('Where the notification leads; null when nowhere.'),
  createdAt: dateTime,
  readAt: dateTime.nullable().describe('When it was first read; null while unread.'),
  isRead: z.boolean(),
});

export function notificationOutputOf(notification: ViewerNotification): z.input<typeof notificationOutput> {
  return {
    id: notification.id,
    kind: notification.kind,
    title: notification.title,
    body: notification.body,
    url: notification.url,
    createdAt: formatDateTime(notification.createdAt),
    readAt: optionalDateTime(notification.readAt),
    isRead: notification.readAt !== null,
  };
}

export const unreadCount = z.number().int().min(0).describe('Unread notifications in the whole inbox.');
