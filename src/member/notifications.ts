import type { Knex } from 'knex';
import { requireDate, toDate } from '../db/connection.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import type { MemberContext } from './context.js';
import { decodeNodeId, encodeNodeId } from './ids.js';
import { DEFAULT_LIMITS, fetchPage, pageWindow, type Page, type PageArgs, type SortKey, withNodes } from './pagination.js';

/**
 * The viewer's notification inbox at the context's site (spec: viewer, `notifications`, `unreadNotificationCount`,
 * `notificationSubscriptions`, variant A) and the only three member writes: mark one read, mark all read, change a
 * delivery preference (spec: "These three are everything `account:write` grants").
 *
 * Stored kinds are finer than the API's (migration 0005: meeting_reminder and meeting_changed are both MEETING).
 * Delivery preferences: a kind × channel pair that was never set is ENABLED (the documented default). A pair whose
 * API kind spans several stored kinds is enabled only when every one of them is (stored value or default), and an
 * update writes all of them, so the pair reads back exactly as it was set.
 */

export type NotificationKind = 'ANNOUNCEMENT' | 'COURSE_UPDATE' | 'LECTURE_UNLOCKED' | 'COMMENT_REPLY' | 'MEETING' | 'EVENT' | 'PAYMENT' | 'SYSTEM';
export type NotificationChannel = 'IN_APP' | 'EMAIL' | 'PUSH';

/** In declaration order of the SDL enums: the subscription matrix is ordered by kind, then channel. */
export const NOTIFICATION_KINDS: readonly NotificationKind[] = ['ANNOUNCEMENT', 'COURSE_UPDATE', 'LECTURE_UNLOCKED', 'COMMENT_REPLY', 'MEETING', 'EVENT', 'PAYMENT', 'SYSTEM'];
export const NOTIFICATION_CHANNELS: readonly NotificationChannel[] = ['IN_APP', 'EMAIL', 'PUSH'];

/** Default of a preference the member never set: every kind is delivered on every channel. */
export const DEFAULT_SUBSCRIPTION_ENABLED = true;

/** Stored kinds of each API kind; the first is the canonical one. Unknown stored kinds read as SYSTEM. */
const STORED_KINDS: Readonly<Record<NotificationKind, readonly string[]>> = {
  ANNOUNCEMENT: ['announcement'],
  COURSE_UPDATE: ['course_update'],
  LECTURE_UNLOCKED: ['lecture_unlocked'],
  COMMENT_REPLY: ['comment_reply'],
  MEETING: ['meeting_reminder', 'meeting_changed'],
  EVENT: ['event_reminder'],
  PAYMENT: ['payment'],
  SYSTEM: ['system'],
};

const KIND_OF_STORED = new Map<string, NotificationKind>(NOTIFICATION_KINDS.flatMap((kind) => STORED_KINDS[kind].map((stored) => [stored, kind] as const)));
/** Stored kinds that map to something other than SYSTEM: anything outside them reads as SYSTEM. */
const NON_SYSTEM_STORED = NOTIFICATION_KINDS.filter((kind) => kind !== 'SYSTEM').flatMap((kind) => STORED_KINDS[kind]);

const STORED_CHANNEL: Readonly<Record<NotificationChannel, string>> = { IN_APP: 'in_app', EMAIL: 'email', PUSH: 'push' };

export function notificationKindOf(stored: string): NotificationKind {
  return KIND_OF_STORED.get(stored.toLowerCase()) ?? 'SYSTEM';
}

export interface ViewerNotification {
  /** Opaque `Notification` node id; pass it to markNotificationRead. */
  id: string;
  dbId: number;
  kind: NotificationKind;
  title: string;
  /** "" when the notification has no body. */
  body: string;
  url: string | null;
  createdAt: Date;
  /** First time it was read; null while unread. */
  readAt: Date | null;
}

export interface NotificationFilter {
  unreadOnly?: boolean | null;
  /** Null or omitted: every kind. Empty: nothing. */
  kind?: readonly NotificationKind[] | null;
}

export interface NotificationSubscriptionValue {
  kind: NotificationKind;
  channel: NotificationChannel;
  enabled: boolean;
}

const NOTIFICATION_ORDER: SortKey = [
  { column: 'notifications.created_at', descending: true, time: true },
  { column: 'notifications.id', descending: true },
];

const NOTIFICATION_COLUMNS = ['id', 'kind', 'title', 'body', 'url', 'created_at', 'read_at'].map((column) => `notifications.${column}`);

interface NotificationRow extends Record<string, unknown> {
  id: number | string;
  kind: string;
  title: string;
  body: string | null;
  url: string | null;
  created_at: unknown;
  read_at: unknown;
}

function ownNotifications(ctx: MemberContext): Knex.QueryBuilder {
  return ctx.db('notifications').where('notifications.site_id', ctx.site.id).where('notifications.user_id', ctx.userId);
}

function applyKindFilter(query: Knex.QueryBuilder, kinds: readonly NotificationKind[]): void {
  const wanted = [...new Set(kinds)];
  for (const kind of wanted) {
    if (!NOTIFICATION_KINDS.includes(kind)) throw new ValidationError(`unknown notification kind "${String(kind)}"`, [{ pointer: '/filter/kind', message: `unknown notification kind "${String(kind)}"` }]);
  }
  if (wanted.length === 0) {
    query.whereRaw('1 = 0');
    return;
  }
  const stored = wanted.filter((kind) => kind !== 'SYSTEM').flatMap((kind) => STORED_KINDS[kind]);
  query.where((match) => {
    if (stored.length > 0) match.orWhereIn('notifications.kind', stored);
    if (wanted.includes('SYSTEM')) match.orWhereNotIn('notifications.kind', NON_SYSTEM_STORED);
  });
}

function toViewerNotification(row: NotificationRow): ViewerNotification {
  const dbId = Number(row.id);
  return {
    id: encodeNodeId('Notification', dbId),
    dbId,
    kind: notificationKindOf(row.kind),
    title: row.title,
    body: row.body ?? '',
    url: row.url,
    createdAt: requireDate(row.created_at),
    readAt: toDate(row.read_at),
  };
}

/** One page of the viewer's inbox, newest first (default 20, at most 100). Throws ValidationError for bad window arguments. */
export async function listViewerNotifications(ctx: MemberContext, args: PageArgs & { filter?: NotificationFilter | null }): Promise<Page<ViewerNotification>> {
  const window = pageWindow(args, DEFAULT_LIMITS, NOTIFICATION_ORDER);
  const filter = args.filter;
  const page = await fetchPage<NotificationRow>(
    () => {
      const query = ownNotifications(ctx).select(NOTIFICATION_COLUMNS);
      if (filter?.unreadOnly) query.whereNull('notifications.read_at');
      if (filter?.kind !== null && filter?.kind !== undefined) applyKindFilter(query, filter.kind);
      return query;
    },
    NOTIFICATION_ORDER,
    window,
  );
  return withNodes(page, page.nodes.map(toViewerNotification));
}

/** Number of unread notifications in the viewer's inbox (read fresh, so a mutation payload sees its own change). */
export async function unreadNotificationCount(ctx: MemberContext): Promise<number> {
  const rows = (await ownNotifications(ctx).whereNull('notifications.read_at').count({ total: '*' })) as Array<{ total: number | string }>;
  return Number(rows[0]?.total ?? 0);
}

/** The viewer's delivery preferences: every kind × channel, in SDL declaration order, stored value or the default. */
export async function notificationSubscriptions(ctx: MemberContext): Promise<NotificationSubscriptionValue[]> {
  const rows = (await ctx.db('notification_subscriptions').where({ site_id: ctx.site.id, user_id: ctx.userId }).select('kind', 'channel', 'enabled')) as Array<{
    kind: string;
    channel: string;
    enabled: boolean | number | string;
  }>;
  const stored = new Map(rows.map((row) => [`${row.kind.toLowerCase()}:${row.channel.toLowerCase()}`, row.enabled === true || Number(row.enabled) === 1]));
  return NOTIFICATION_KINDS.flatMap((kind) =>
    NOTIFICATION_CHANNELS.map((channel) => ({
      kind,
      channel,
      enabled: STORED_KINDS[kind].every((storedKind) => stored.get(`${storedKind}:${STORED_CHANNEL[channel]}`) ?? DEFAULT_SUBSCRIPTION_ENABLED),
    })),
  );
}

async function findOwnNotification(ctx: MemberContext, dbId: number): Promise<NotificationRow | undefined> {
  return (await ownNotifications(ctx).where('notifications.id', dbId).first(NOTIFICATION_COLUMNS)) as NotificationRow | undefined;
}

/**
 * Marks one of the viewer's notifications read, by its opaque id. Idempotent: a read notification keeps its first
 * `readAt`. An unknown, malformed or another member's id is a NotFoundError (no distinction, so ids cannot be probed).
 */
export async function markNotificationRead(ctx: MemberContext, notificationId: string): Promise<ViewerNotification> {
  const dbId = decodeNodeId('Notification', notificationId);
  const notFound = () => new NotFoundError('no such notification');
  if (dbId === null) throw notFound();
  await ownNotifications(ctx).where('notifications.id', dbId).whereNull('notifications.read_at').update({ read_at: ctx.now });
  const row = await findOwnNotification(ctx, dbId);
  if (!row) throw notFound();
  return toViewerNotification(row);
}

/**
 * Marks every unread notification of the viewer read; with `createdAtOrBefore`, only those created at or before
 * that instant. Times in the API have whole seconds, so the bound covers its whole second: passing the `createdAt`
 * a client displayed includes that notification. Returns how many changed; idempotent.
 */
export async function markAllNotificationsRead(ctx: MemberContext, input: { createdAtOrBefore?: Date | null } = {}): Promise<{ markedCount: number }> {
  const query = ownNotifications(ctx).whereNull('notifications.read_at');
  const bound = input.createdAtOrBefore;
  if (bound !== null && bound !== undefined) {
    if (Number.isNaN(bound.getTime())) throw new ValidationError('createdAtOrBefore is not a valid time', [{ pointer: '/input/createdAtOrBefore', message: 'not a valid time' }]);
    query.where('notifications.created_at', '<', new Date((Math.floor(bound.getTime() / 1000) + 1) * 1000));
  }
  const changed = (await query.update({ read_at: ctx.now })) as number;
  return { markedCount: Number(changed) };
}

/** Turns one delivery preference on or off (an upsert of every stored kind behind the API kind). Idempotent. */
export async function updateNotificationSubscription(ctx: MemberContext, input: NotificationSubscriptionValue): Promise<NotificationSubscriptionValue> {
  if (!NOTIFICATION_KINDS.includes(input.kind)) throw new ValidationError(`unknown notification kind "${String(input.kind)}"`, [{ pointer: '/input/kind', message: 'unknown notification kind' }]);
  if (!NOTIFICATION_CHANNELS.includes(input.channel)) throw new ValidationError(`unknown notification channel "${String(input.channel)}"`, [{ pointer: '/input/channel', message: 'unknown notification channel' }]);
  const rows = STORED_KINDS[input.kind].map((kind) => ({
    site_id: ctx.site.id,
    user_id: ctx.userId,
    kind,
    channel: STORED_CHANNEL[input.channel],
    enabled: input.enabled,
    updated_at: ctx.now,
  }));
  await ctx.db('notification_subscriptions').insert(rows).onConflict(['site_id', 'user_id', 'kind', 'channel']).merge(['enabled', 'updated_at']);
  return { kind: input.kind, channel: input.channel, enabled: input.enabled };
}
