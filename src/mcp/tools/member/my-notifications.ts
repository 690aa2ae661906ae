import { z } from 'zod';
import { listViewerNotifications, unreadNotificationCount } from '../../../member/notifications.js';
import { DEFAULT_LIMITS } from '../../../member/pagination.js';
import { forwardPageInfo } from '../../format.js';
import { pageInfo, pageInput, totalCount } from '../../schemas.js';
import { defineTool, READ_ONLY } from '../../tool.js';
import { notificationKind, notificationOutput, notificationOutputOf, unreadCount } from './notification-output.js';

export const listMyNotifications = defineTool({
  name: 'list_my_notifications',
  title: 'My notifications',
  description:
    "The signed-in member's notification inbox at this school, newest first (announcements, course updates, unlocked lectures, replies, meetings, events, payments), with the number of unread ones. unreadOnly: true lists only unread ones; kinds narrows to some kinds. To mark them read use mark_notification_read or mark_all_notifications_read (those also need account:write). Needs a member token with account:read.",
  scopes: ['account:read'],
  needs: ['notificationInbox'],
  input: z.object({
    unreadOnly: z.boolean().optional().describe('Only unread notifications.'),
    kinds: z.array(notificationKind).max(8).optional().describe('Only these kinds; omit for every kind.'),
    ...pageInput(DEFAULT_LIMITS.defaultSize, DEFAULT_LIMITS.maxSize),
  }),
  output: z.object({ notifications: z.array(notificationOutput), unreadCount, pageInfo, totalCount: totalCount.describe('Notifications matching the filter, ignoring paging.') }),
  annotations: READ_ONLY,
  async run(input, context) {
    const member = context.member();
    const [page, unread] = await Promise.all([
      listViewerNotifications(member, { first: input.first ?? null, after: input.cursor ?? null, filter: { unreadOnly: input.unreadOnly ?? null, kind: input.kinds ?? null } }),
      unreadNotificationCount(member),
    ]);
    return { notifications: page.nodes.map(notificationOutputOf), unreadCount: unread, pageInfo: forwardPageInfo(page), totalCount: page.totalCount };
  },
});
