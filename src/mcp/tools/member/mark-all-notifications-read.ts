import { z } from 'zod';
import { markAllNotificationsRead as markAllRead, unreadNotificationCount } from '../../../member/notifications.js';
import { dateTime } from '../../schemas.js';
import { defineTool } from '../../tool.js';
import { unreadCount } from './notification-output.js';

export const markAllNotificationsRead = defineTool({
  name: 'mark_all_notifications_read',
  title: 'Mark all notifications read',
  description:
    "Marks every unread notification of the signed-in member as read. Pass createdAtOrBefore (the createdAt of the newest notification you showed) so that notifications arriving meanwhile stay unread. Idempotent. Returns how many changed and the unread count left. Needs a member token with account:read and account:write.",
  scopes: ['account:read', 'account:write'],
  needs: ['notificationInbox'],
  input: z.object({ createdAtOrBefore: dateTime.optional().describe('Only notifications created at or before this instant (its whole second).') }),
  output: z.object({ markedCount: z.number().int().min(0).describe('Notifications that changed from unread to read.'), unreadCount }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, context) {
    const member = context.member();
    const { markedCount } = await markAllRead(member, { createdAtOrBefore: input.createdAtOrBefore === undefined ? null : new Date(input.createdAtOrBefore) });
    return { markedCount, unreadCount: await unreadNotificationCount(member) };
  },
});
