import { z } from 'zod';
import { markNotificationRead as markRead, unreadNotificationCount } from '../../../member/notifications.js';
import { defineTool } from '../../tool.js';
import { notificationOutput, notificationOutputOf, unreadCount } from './notification-output.js';

export const markNotificationRead = defineTool({
  name: 'mark_notification_read',
  title: 'Mark a notification read',
  description:
    "Marks one of the signed-in member's notifications as read, by the id list_my_notifications returned. Idempotent: marking it again keeps the first read time. Returns the notification and the inbox's unread count. An unknown id, or another member's, is not_found. Needs a member token with account:read and account:write.",
  scopes: ['account:read', 'account:write'],
  needs: ['notificationInbox'],
  input: z.object({ id: z.string().min(1).max(64).describe('The notification id from list_my_notifications.') }),
  output: z.object({ notification: notificationOutput, unreadCount }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, context) {
    const member = context.member();
    const notification = await markRead(member, input.id);
    return { notification: notificationOutputOf(notification), unreadCount: await unreadNotificationCount(member) };
  },
});
