import { expect } from 'chai';
import type { Variant } from '../src/config/config.js';
import { encodeNodeId } from '../src/member/ids.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import type { McpCourse } from './support/mcp-clients.js';
import { call, callError, COURSE_FIELDS, useMcpSchool, withClient, type GqlCourse, type GqlLecture, type PageInfo } from './support/mcp-school.js';

const MEETING_FIELDS = 'id kind state startAt endAt startedAt roomUrl attendeesCount service { id title } studyGroup { id name }';
const PAYMENT_FIELDS = `id tradeNo amount currency paymentType paidAt paymentState createdAt
  adjustments { kind code title amount } invoice { number type title taxId status issuedAt }
  lineitems { title kind quantity unitAmount amount productId } installment { count firstInstallmentAmount perInstallmentAmount }
  refundingState refundedAmount refundedAt refundRequestedAt bankCode bankName codeNo expiredAt`;
const NOTIFICATION_FIELDS = 'id kind title body url createdAt readAt isRead';

interface McpSyllabus {
  course: Omit<McpCourse, 'progress' | 'lastWatchedLecture'>;
  progress: Record<string, number>;
  resumeAt: { lectureId: string; lectureTitle: string | null; sectionTitle: string | null; positionSeconds: number; watchedAt: string | null } | null;
  nextUp: { lectureId: string; lectureTitle: string; sectionTitle: string } | null;
  sections: Array<{ id: string; title: string; position: number; lectures: Array<Omit<GqlLecture, 'duration'> & { kind: string; durationSeconds: number }> }>;
}

/**
 * The user-bound /mcp tools answer what the member GraphQL API answers for the same member: courses, syllabus and
 * progress, and in variant A meetings, payments and notifications, with the notification writes (account:write).
 */
for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`MCP endpoint /mcp, variant ${variant}`, (scratch) => memberToolsSuite(variant, scratch));
}

function memberToolsSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  const school = useMcpSchool(variant, scratch);

  describe('user-bound tools match the member GraphQL API for the same member', () => {
    it('list_my_courses: the enrolled courses with progress and resume point', async () => {
      const graph = await school.ask<{ viewer: { enrolledCourses: { nodes: GqlCourse[]; totalCount: number } } }>(school.tokens.full, `{ viewer { enrolledCourses(first: 50) { nodes { ${COURSE_FIELDS} } totalCount } } }`);
      const mcp = await withClient(school.origin, school.tokens.read, (client) => call<{ courses: McpCourse[]; pageInfo: PageInfo; totalCount: number }>(client, 'list_my_courses', { first: 50 }));
      expect(mcp.totalCount).to.equal(graph.viewer.enrolledCourses.totalCount).and.to.equal(3);
      expect(mcp.courses.map((course) => ({ id: course.id, slug: course.slug, title: course.title, expireDate: course.expireDate, hasLifetimeAccess: course.hasLifetimeAccess, lastWatchedLecture: course.lastWatchedLecture, detailProgress: course.progress }))).to.deep.equal(
        graph.viewer.enrolledCourses.nodes.map((course) => ({ id: course.id, slug: course.slug, title: course.title, expireDate: course.expireDate, hasLifetimeAccess: course.hasLifetimeAccess, lastWatchedLecture: course.lastWatchedLecture, detailProgress: course.detailProgress })),
      );
      expect(mcp.courses.map((course) => course.slug)).not.to.include('beta-course');
      const paged = await withClient(school.origin, school.tokens.read, async (client) => {
        const first = await call<{ courses: McpCourse[]; pageInfo: PageInfo }>(client, 'list_my_courses', { first: 2 });
        const next = await call<{ courses: McpCourse[]; pageInfo: PageInfo }>(client, 'list_my_courses', { first: 2, cursor: first.pageInfo.nextCursor });
        return [...first.courses, ...next.courses].map((course) => course.id);
      });
      expect(paged).to.deep.equal(mcp.courses.map((course) => course.id));
    });

    it('get_my_course_syllabus: per-lecture state, locks, progress and where the member left off', async () => {
      const graph = await school.ask<{ viewer: { enrolledCourses: { nodes: GqlCourse[] } } }>(school.tokens.full, `{ viewer { enrolledCourses(first: 50) { nodes { ${COURSE_FIELDS} } } } }`);
      await withClient(school.origin, school.tokens.read, async (client) => {
        for (const course of graph.viewer.enrolledCourses.nodes) {
          const bySlug = await call<McpSyllabus>(client, 'get_my_course_syllabus', { course: course.slug });
          expect(await call<McpSyllabus>(client, 'get_my_course_syllabus', { course: course.id })).to.deep.equal(bySlug);
          expect(bySlug.course).to.include({ id: course.id, slug: course.slug, title: course.title, expireDate: course.expireDate, hasLifetimeAccess: course.hasLifetimeAccess });
          expect(bySlug.progress).to.deep.equal(course.detailProgress);
          expect(bySlug.sections.map((section) => ({ ...section, lectures: section.lectures.map(({ durationSeconds, kind: _kind, ...rest }) => ({ ...rest, duration: durationSeconds })) }))).to.deep.equal(course.sections);
          expect(bySlug.resumeAt?.lectureId ?? null).to.equal(course.lastWatchedLecture?.lectureId ?? null);
          expect(bySlug.resumeAt?.positionSeconds ?? null).to.equal(course.lastWatchedLecture?.positionSeconds ?? null);
        }
        const typography = await call<McpSyllabus>(client, 'get_my_course_syllabus', { course: 'foundations-of-typography' });
        expect(typography.resumeAt).to.include({ lectureTitle: 'Hierarchy with a single family', sectionTitle: 'Setting Text', positionSeconds: 312 });
        expect(typography.nextUp).to.deep.include({ lectureTitle: 'Hierarchy with a single family', sectionTitle: 'Setting Text' });
        const capstone = typography.sections[2]?.lectures[2];
        expect(capstone).to.include({ title: 'Capstone brief and critique sign-up', isLocked: true, state: 'unread' });

        expect((await callError(client, 'get_my_course_syllabus', { course: 'prototyping-in-figma' })).error, 'published but not enrolled').to.equal('not_found');
        expect((await callError(client, 'get_my_course_syllabus', { course: 'beta-course' })).error, 'enrolled at another school').to.equal('not_found');
      });
      // A course the member is enrolled in is theirs whatever its catalogue status (the draft bootcamp).
      await withClient(school.origin, school.tokens.reader, async (client) => {
        const draft = await call<McpSyllabus>(client, 'get_my_course_syllabus', { course: 'portfolio-review-bootcamp' });
        expect(draft.course.slug).to.equal('portfolio-review-bootcamp');
      });
    });

    if (variant === 'A') {
      it('list_my_meetings: upcoming (soonest first, canceled left out) and past (newest first) are the GraphQL windows', async () => {
        type Meeting = Record<string, unknown> & { id: string; isLive: boolean; roomUrl: string; state: string; startedAt: number };
        type Meetings = { meetings: Meeting[]; pageInfo: PageInfo; totalCount: number };
        const nowSeconds = Math.floor(Date.now() / 1000);
        const upcomingGraph = await school.ask<{ viewer: { consultingMeetings: { nodes: Array<Record<string, unknown>>; totalCount: number } } }>(
          school.tokens.full,
          `{ viewer { consultingMeetings(first: 50, filter: { startedAfter: ${nowSeconds}, state: [available, scheduled] }) { nodes { ${MEETING_FIELDS} } totalCount } } }`,
        );
        const pastGraph = await school.ask<{ viewer: { consultingMeetings: { nodes: Array<Record<string, unknown>>; totalCount: number } } }>(
          school.tokens.full,
          `{ viewer { consultingMeetings(first: 50, filter: { startedBefore: ${nowSeconds + 1} }) { nodes { ${MEETING_FIELDS} } totalCount } } }`,
        );
        await withClient(school.origin, school.tokens.read, async (client) => {
          const upcoming = await call<Meetings>(client, 'list_my_meetings', { first: 50 });
          const strip = (meetings: Meeting[]) => meetings.map(({ isLive: _isLive, ...rest }) => rest);
          expect(strip(upcoming.meetings)).to.deep.equal([...upcomingGraph.viewer.consultingMeetings.nodes].reverse());
          expect(upcoming.totalCount).to.equal(upcomingGraph.viewer.consultingMeetings.totalCount);
          expect(upcoming.meetings.length).to.be.above(1);
          expect(upcoming.meetings.every((meeting) => meeting.state !== 'canceled' && meeting.startedAt > nowSeconds - 5 && !meeting.isLive && meeting.roomUrl === '')).to.equal(true);
          const starts = upcoming.meetings.map((meeting) => meeting.startedAt);
          expect(starts).to.deep.equal([...starts].sort((a, b) => a - b));

          const past = await call<Meetings>(client, 'list_my_meetings', { when: 'past', first: 50 });
          expect(strip(past.meetings)).to.deep.equal(pastGraph.viewer.consultingMeetings.nodes);
          expect(past.meetings.some((meeting) => meeting.state === 'canceled')).to.equal(true);
          const live = past.meetings.filter((meeting) => meeting.isLive);
          expect(live).to.have.length(1);
          expect(live[0]?.roomUrl).to.equal('https://meet.northwind-academy.example/r/oh-live');
          expect(past.meetings[0]?.isLive, 'the live meeting started most recently').to.equal(true);

          // Paging upcoming: soonest first across pages.
          const one = await call<Meetings>(client, 'list_my_meetings', { first: 1 });
          const more = await call<Meetings>(client, 'list_my_meetings', { first: 50, cursor: one.pageInfo.nextCursor });
          expect([...one.meetings, ...more.meetings].map((meeting) => meeting.id)).to.deep.equal(upcoming.meetings.map((meeting) => meeting.id));
          expect(more.pageInfo).to.deep.equal({ hasNextPage: false, nextCursor: null });
        });
      });

      it('list_my_payments: every payment with its sub-records, newest first, paged like GraphQL', async () => {
        type Payments = { payments: Array<Record<string, unknown>>; pageInfo: PageInfo; totalCount: number };
        const graph = await school.ask<{ viewer: { payments: { nodes: Array<Record<string, unknown>>; totalCount: number; pageInfo: { endCursor: string } } } }>(
          school.tokens.full,
          `{ viewer { payments(first: 50) { nodes { ${PAYMENT_FIELDS} } totalCount pageInfo { endCursor } } } }`,
        );
        const graphFirst = await school.ask<{ viewer: { payments: { pageInfo: { endCursor: string; hasNextPage: boolean } } } }>(school.tokens.full, '{ viewer { payments(first: 2) { pageInfo { endCursor hasNextPage } } } }');
        await withClient(school.origin, school.tokens.read, async (client) => {
          const all = await call<Payments>(client, 'list_my_payments', { first: 50 });
          expect(all.payments).to.deep.equal(graph.viewer.payments.nodes);
          expect(all.totalCount).to.equal(graph.viewer.payments.totalCount).and.to.be.above(3);
          const first = await call<Payments>(client, 'list_my_payments', { first: 2 });
          expect(first.pageInfo).to.deep.equal({ hasNextPage: graphFirst.viewer.payments.pageInfo.hasNextPage, nextCursor: graphFirst.viewer.payments.pageInfo.endCursor });
          const rest = await call<Payments>(client, 'list_my_payments', { first: 50, cursor: first.pageInfo.nextCursor });
          expect([...first.payments, ...rest.payments]).to.deep.equal(all.payments);
          const tooMany = await client.callTool({ name: 'list_my_payments', arguments: { first: 51 } });
          expect(tooMany.isError, 'the spec caps payments pages at 50').to.equal(true);
        });
      });

      it('list_my_notifications: the inbox, its filters and the unread count', async () => {
        type Notifications = { notifications: Array<Record<string, unknown> & { isRead: boolean; kind: string }>; unreadCount: number; totalCount: number };
        const graph = await school.ask<{ viewer: { notifications: { nodes: Array<Record<string, unknown>>; totalCount: number }; unreadNotificationCount: number } }>(
          school.tokens.full,
          `{ viewer { notifications(first: 50) { nodes { ${NOTIFICATION_FIELDS} } totalCount } unreadNotificationCount } }`,
        );
        await withClient(school.origin, school.tokens.read, async (client) => {
          const all = await call<Notifications>(client, 'list_my_notifications', { first: 50 });
          expect(all.notifications).to.deep.equal(graph.viewer.notifications.nodes);
          expect(all.unreadCount).to.equal(graph.viewer.unreadNotificationCount).and.to.equal(4);
          expect(all.notifications.map((notification) => notification.title)).not.to.include('Beta news');
          const unread = await call<Notifications>(client, 'list_my_notifications', { unreadOnly: true });
          expect(unread.notifications.every((notification) => !notification.isRead)).to.equal(true);
          expect(unread.totalCount).to.equal(4);
          const payments = await call<Notifications>(client, 'list_my_notifications', { kinds: ['PAYMENT'] });
          expect(payments.notifications.map((notification) => notification.kind)).to.deep.equal(['PAYMENT', 'PAYMENT']);
          const badKind = await client.callTool({ name: 'list_my_notifications', arguments: { kinds: ['SPAM'] } });
          expect(badKind.isError).to.equal(true);
        });
      });

      it('mark_notification_read and mark_all_notifications_read change what GraphQL reads (account:write)', async () => {
        type Inbox = { notifications: Array<{ id: string; title: string; isRead: boolean; readAt: string | null; createdAt: string }>; unreadCount: number };
        await withClient(school.origin, school.tokens.reader, async (client) => {
          const inbox = await call<Inbox>(client, 'list_my_notifications');
          expect(inbox.unreadCount).to.equal(3);
          const receipt = inbox.notifications.find((notification) => notification.title === 'Receipt');
          const marked = await call<{ notification: { id: string; isRead: boolean; readAt: string }; unreadCount: number }>(client, 'mark_notification_read', { id: receipt?.id });
          expect(marked.notification.isRead).to.equal(true);
          expect(marked.unreadCount).to.equal(2);
          const again = await call<{ notification: { readAt: string } }>(client, 'mark_notification_read', { id: receipt?.id });
          expect(again.notification.readAt, 'idempotent: the first read time stays').to.equal(marked.notification.readAt);
          const graph = await school.ask<{ viewer: { unreadNotificationCount: number; notifications: { nodes: Array<{ id: string; isRead: boolean }> } } }>(school.tokens.reader, '{ viewer { unreadNotificationCount notifications(first: 10) { nodes { id isRead } } } }');
          expect(graph.viewer.unreadNotificationCount).to.equal(2);
          expect(graph.viewer.notifications.nodes.find((node) => node.id === receipt?.id)?.isRead).to.equal(true);

          expect((await callError(client, 'mark_notification_read', { id: encodeNodeId('Notification', 999999) })).error).to.equal('not_found');
          const miasNotification = (await school.ask<{ viewer: { notifications: { nodes: Array<{ id: string }> } } }>(school.tokens.full, '{ viewer { notifications(first: 1) { nodes { id } } } }')).viewer.notifications.nodes[0];
          expect((await callError(client, 'mark_notification_read', { id: miasNotification?.id })).error, "another member's notification").to.equal('not_found');

          const oldest = inbox.notifications.find((notification) => notification.title === 'Welcome');
          const some = await call<{ markedCount: number; unreadCount: number }>(client, 'mark_all_notifications_read', { createdAtOrBefore: oldest?.createdAt });
          expect(some).to.deep.equal({ markedCount: 1, unreadCount: 1 });
          const rest = await call<{ markedCount: number; unreadCount: number }>(client, 'mark_all_notifications_read');
          expect(rest).to.deep.equal({ markedCount: 1, unreadCount: 0 });
          expect((await school.ask<{ viewer: { unreadNotificationCount: number } }>(school.tokens.reader, '{ viewer { unreadNotificationCount } }')).viewer.unreadNotificationCount).to.equal(0);
        });
      });
    }
  });
}
