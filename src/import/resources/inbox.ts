import { optionalTime, time, type ImportContext } from '../context.js';

/** Inbox notifications, keyed by externalId. */
export async function importNotifications(ctx: ImportContext): Promise<void> {
  for (const notification of ctx.document.notifications ?? []) {
    await ctx.link(
      'notifications',
      { site_id: ctx.siteId, external_id: notification.externalId },
      {
        user_id: ctx.users.get(notification.user),
        kind: notification.kind,
        title: notification.title,
        body: notification.body ?? null,
        url: notification.url ?? null,
        created_at: time(notification.createdAt),
        read_at: optionalTime(notification.readAt),
      },
    );
  }
}

/** Notification settings, keyed by (site, user, kind, channel). */
export async function importNotificationSubscriptions(ctx: ImportContext): Promise<void> {
  for (const setting of ctx.document.notificationSubscriptions ?? []) {
    await ctx.link(
      'notification_subscriptions',
      { site_id: ctx.siteId, user_id: ctx.users.get(setting.user), kind: setting.kind, channel: setting.channel },
      { enabled: setting.enabled },
    );
  }
}
