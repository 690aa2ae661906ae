import { expect } from 'chai';
import { encodeNodeId } from '../src/member/ids.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken } from './support/member-api.js';
import { MINUTE, HOUR, DAY, MIA, NOAH, NOTIFICATION_FIELDS, expectNoErrors, errorCodes, type Notification, type Subscription, useVariantASchool } from './support/member-variant-a.js';

/**
 * Variant A's notification inbox and its three mutations over HTTP (spec: "GraphQL operations on the member API").
 * Data: the demo school (Mia, docs/demo.md) plus an import document with edge cases and bulk rows.
 */
describeEachDatabase('member GraphQL variant A: meetings, payments, notifications', (scratch) => {
  const school = useVariantASchool(scratch);

  describe('notifications', () => {
    it('lists the inbox newest first with kinds, read state and filters', async () => {
      const page = await school.notificationsOf(MIA);
      expect(page.totalCount).to.equal(9);
      const created = page.nodes.map((node) => Date.parse(node.createdAt));
      expect(created).to.deep.equal([...created].sort((a, b) => b - a));
      expect(page.nodes[0]).to.include({ kind: 'MEETING', title: 'Design Systems Office Hours start in 15 minutes', body: '', isRead: false, readAt: null });
      expect(page.nodes.map((node) => node.title)).not.to.include('Beta news');
      expect(page.nodes.map((node) => node.kind)).to.include.members(['MEETING', 'PAYMENT', 'EVENT', 'COURSE_UPDATE', 'LECTURE_UNLOCKED', 'ANNOUNCEMENT']);
      for (const node of page.nodes) expect(node.isRead).to.equal(node.readAt !== null);
      const unread = await school.notificationsOf(MIA, 'first: 50, filter: { unreadOnly: true }');
      expect(unread.totalCount).to.equal(4);
      const payments = await school.notificationsOf(MIA, 'first: 50, filter: { kind: [PAYMENT] }');
      expect(payments.nodes.map((node) => node.kind)).to.deep.equal(['PAYMENT', 'PAYMENT']);
      const meetings = await school.notificationsOf(MIA, 'first: 50, filter: { kind: [MEETING], unreadOnly: true }');
      expect(meetings.totalCount).to.equal(2);
      const nothing = await school.notificationsOf(MIA, 'first: 50, filter: { kind: [] }');
      expect(nothing.totalCount).to.equal(0);
      const two = await school.notificationsOf(MIA, 'first: 2');
      expect(two.nodes.map((node) => node.id)).to.deep.equal(page.nodes.slice(0, 2).map((node) => node.id));
      expect(two.pageInfo.hasNextPage).to.equal(true);
    });

    it('counts unread notifications and reports every kind × channel preference with stored values or the default', async () => {
      const result = await school.ask<{ viewer: { unreadNotificationCount: number; notificationSubscriptions: Subscription[] } }>(MIA, '{ viewer { unreadNotificationCount notificationSubscriptions { kind channel enabled } } }');
      expectNoErrors(result);
      expect(result.data!.viewer.unreadNotificationCount).to.equal(4);
      const subscriptions = result.data!.viewer.notificationSubscriptions;
      const kinds = ['ANNOUNCEMENT', 'COURSE_UPDATE', 'LECTURE_UNLOCKED', 'COMMENT_REPLY', 'MEETING', 'EVENT', 'PAYMENT', 'SYSTEM'];
      const channels = ['IN_APP', 'EMAIL', 'PUSH'];
      expect(subscriptions.map((entry) => `${entry.kind}/${entry.channel}`)).to.deep.equal(kinds.flatMap((kind) => channels.map((channel) => `${kind}/${channel}`)));
      const disabled = subscriptions.filter((entry) => !entry.enabled).map((entry) => `${entry.kind}/${entry.channel}`);
      expect(disabled).to.have.members(['LECTURE_UNLOCKED/PUSH', 'ANNOUNCEMENT/EMAIL']);
    });

    it('markNotificationRead is idempotent and keeps the first readAt', async () => {
      const id = await school.notificationId('ntf-mia-003');
      const mutation = `mutation($id: ID!) { markNotificationRead(id: $id) { notification { ${NOTIFICATION_FIELDS} } unreadNotificationCount } }`;
      type Payload = { markNotificationRead: { notification: Notification; unreadNotificationCount: number } };
      const first = await school.ask<Payload>(MIA, mutation, { id });
      expectNoErrors(first);
      const marked = first.data!.markNotificationRead;
      expect(marked.notification).to.include({ id, isRead: true, kind: 'PAYMENT' });
      expect(marked.unreadNotificationCount).to.equal(3);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const again = await school.ask<Payload>(MIA, mutation, { id });
      expectNoErrors(again);
      expect(again.data!.markNotificationRead.notification.readAt).to.equal(marked.notification.readAt);
      expect(again.data!.markNotificationRead.unreadNotificationCount).to.equal(3);
      const alreadyRead = await school.ask<Payload>(MIA, mutation, { id: await school.notificationId('ntf-mia-005') });
      expectNoErrors(alreadyRead);
      const demoReadAt = new Date(school.now - (school.now % MINUTE) - DAY + HOUR).toISOString().replace(/\.\d{3}Z$/, 'Z');
      expect(alreadyRead.data!.markNotificationRead.notification.readAt, 'the readAt imported with the demo').to.equal(demoReadAt);
    });

    it("answers NOT_FOUND for another member's, an unknown or a malformed notification id, and changes nothing", async () => {
      const noahsId = await school.notificationId('ntf-noah-001');
      const mutation = 'mutation($id: ID!) { markNotificationRead(id: $id) { unreadNotificationCount } }';
      for (const id of [noahsId, encodeNodeId('Notification', 999_999), 'not-an-id', encodeNodeId('Payment', 1), await school.notificationId('b-ntf', school.server.siteB.id)]) {
        const result = await school.ask(MIA, mutation, { id });
        expect(result.status).to.equal(200);
        expect(errorCodes(result), id).to.deep.equal(['NOT_FOUND']);
        expect(result.data ?? null).to.equal(null);
      }
      const noah = (await school.db('notifications').where({ site_id: school.server.siteA.id, external_id: 'ntf-noah-001' }).first('read_at')) as { read_at: unknown };
      expect(noah.read_at).to.equal(null);
    });

    it('markAllNotificationsRead respects createdAtOrBefore, is idempotent and leaves other members alone', async () => {
      type Payload = { markAllNotificationsRead: { markedCount: number; unreadNotificationCount: number } };
      const before = await school.notificationsOf(MIA, 'first: 50, filter: { unreadOnly: true }');
      expect(before.totalCount).to.equal(3);
      // The client saw everything up to the second-newest unread notification; the newest must stay unread.
      const cutoff = before.nodes[1]!.createdAt;
      const partial = await school.ask<Payload>(MIA, 'mutation($at: DateTime) { markAllNotificationsRead(input: { createdAtOrBefore: $at }) { markedCount unreadNotificationCount } }', { at: cutoff });
      expectNoErrors(partial);
      expect(partial.data!.markAllNotificationsRead).to.deep.equal({ markedCount: 2, unreadNotificationCount: 1 });
      const still = await school.notificationsOf(MIA, 'first: 50, filter: { unreadOnly: true }');
      expect(still.nodes.map((node) => node.id)).to.deep.equal([before.nodes[0]!.id]);
      const all = await school.ask<Payload>(MIA, 'mutation { markAllNotificationsRead { markedCount unreadNotificationCount } }');
      expectNoErrors(all);
      expect(all.data!.markAllNotificationsRead).to.deep.equal({ markedCount: 1, unreadNotificationCount: 0 });
      const again = await school.ask<Payload>(MIA, 'mutation { markAllNotificationsRead(input: {}) { markedCount unreadNotificationCount } }');
      expect(again.data!.markAllNotificationsRead).to.deep.equal({ markedCount: 0, unreadNotificationCount: 0 });
      const noah = await school.ask<{ viewer: { unreadNotificationCount: number } }>(NOAH, '{ viewer { unreadNotificationCount } }');
      expect(noah.data!.viewer.unreadNotificationCount).to.equal(2);
      const siteB = (await school.db('notifications').where({ site_id: school.server.siteB.id, external_id: 'b-ntf' }).first('read_at')) as { read_at: unknown };
      expect(siteB.read_at, "Mia's notification at site B").to.equal(null);
    });

    it('updateNotificationSubscription upserts one preference, idempotently, and only for the viewer', async () => {
      type Payload = { updateNotificationSubscription: { subscription: Subscription } };
      const mutation = 'mutation($input: UpdateNotificationSubscriptionInput!) { updateNotificationSubscription(input: $input) { subscription { kind channel enabled } } }';
      const read = async (email: string) => {
        const result = await school.ask<{ viewer: { notificationSubscriptions: Subscription[] } }>(email, '{ viewer { notificationSubscriptions { kind channel enabled } } }');
        expectNoErrors(result);
        return new Map(result.data!.viewer.notificationSubscriptions.map((entry) => [`${entry.kind}/${entry.channel}`, entry.enabled]));
      };
      const noahBefore = await read(NOAH);
      for (let round = 0; round < 2; round += 1) {
        const off = await school.ask<Payload>(MIA, mutation, { input: { kind: 'MEETING', channel: 'PUSH', enabled: false } });
        expectNoErrors(off);
        expect(off.data!.updateNotificationSubscription.subscription).to.deep.equal({ kind: 'MEETING', channel: 'PUSH', enabled: false });
        expect((await read(MIA)).get('MEETING/PUSH')).to.equal(false);
      }
      const on = await school.ask<Payload>(MIA, mutation, { input: { kind: 'LECTURE_UNLOCKED', channel: 'PUSH', enabled: true } });
      expectNoErrors(on);
      const comment = await school.ask<Payload>(MIA, mutation, { input: { kind: 'COMMENT_REPLY', channel: 'EMAIL', enabled: false } });
      expectNoErrors(comment);
      const after = await read(MIA);
      expect(after.get('LECTURE_UNLOCKED/PUSH')).to.equal(true);
      expect(after.get('COMMENT_REPLY/EMAIL')).to.equal(false);
      expect(after.get('MEETING/EMAIL')).to.equal(true);
      const mia = await school.userOf(MIA);
      const rows = (await school.db('notification_subscriptions').where({ site_id: school.server.siteA.id, user_id: mia.id, channel: 'push' }).whereIn('kind', ['meeting_reminder', 'meeting_changed']).select('kind', 'enabled')) as Array<{ kind: string; enabled: unknown }>;
      expect(rows.map((row) => [row.kind, Boolean(Number(row.enabled))]).sort()).to.deep.equal([
        ['meeting_changed', false],
        ['meeting_reminder', false],
      ]);
      expect(await read(NOAH)).to.deep.equal(noahBefore);
    });

    it('needs account:write for the mutations: a read-only token gets an errors entry', async () => {
      const readOnly = await memberToken(school.db, school.server.siteA, await school.userOf(NOAH), 'account:read');
      const result = await gql(school.server.siteA.origin, 'A', readOnly, 'mutation { markAllNotificationsRead { markedCount } }');
      expect(result.status).to.equal(200);
      expect(errorCodes(result)).to.deep.equal(['INSUFFICIENT_SCOPE']);
      const noah = await school.ask<{ viewer: { unreadNotificationCount: number } }>(NOAH, '{ viewer { unreadNotificationCount } }');
      expect(noah.data!.viewer.unreadNotificationCount).to.equal(2);
    });
  });
});
