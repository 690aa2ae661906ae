import { expect } from 'chai';
import type { Variant } from '../src/config/config.js';
import { encodeNodeId } from '../src/member/ids.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { call, callError, COURSE_FIELDS, textOf, useMcpSchool, withClient, type GqlCourse, type PageInfo } from './support/mcp-school.js';

/**
 * The public /mcp tools, anonymous: what each shows of the school of the request origin (published, public, current
 * only), how it pages and searches, and that it agrees with the member GraphQL API where both show the same thing.
 */
for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`MCP endpoint /mcp, variant ${variant}`, (scratch) => publicToolsSuite(variant, scratch));
}

function publicToolsSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  const school = useMcpSchool(variant, scratch);

  describe('public tools', () => {
    it('get_school_profile describes the school of the request origin', async () => {
      const profile = await withClient(school.origin, undefined, (client) => call<Record<string, unknown>>(client, 'get_school_profile'));
      expect(profile).to.include({ name: 'Northwind Academy of Design', url: school.origin, timezone: 'Asia/Taipei', defaultCurrency: 'TWD', contactEmail: 'hello@northwind-academy.example', agentGuide: `${school.origin}/auth.md` });
      expect(profile.lecturers).to.deep.equal([
        { name: 'Liang Wu', bio: 'Type designer and lettering artist; twelve years teaching typography.', avatarUrl: null },
        { name: 'Priya Raman', bio: 'Design systems lead who has shipped systems at three product companies.', avatarUrl: null },
      ]);
      // Published courses: the demo's four plus the wildcard one (not the draft bootcamp, not the archived course).
      // Events: Design Systems Meetup, Portfolio Night, Happening Now (not the past, private or draft ones).
      expect(profile.catalogue).to.deep.equal({ publishedCourses: 5, upcomingEvents: 3, consultingServices: 3 });
      const other = await withClient(school.server.siteB.origin, undefined, (client) => call<Record<string, unknown>>(client, 'get_school_profile'));
      expect(other).to.include({ name: 'Beta School', url: school.server.siteB.origin });
    });

    it('search_courses lists the published courses by title, pages with a cursor, and matches every word of a query', async () => {
      type Courses = { courses: Array<{ id: string; slug: string; title: string; price: unknown; lecturers: string[]; lectureCount: number; totalDurationSeconds: number; url: string }>; pageInfo: PageInfo; totalCount: number };
      await withClient(school.origin, undefined, async (client) => {
        const all = await call<Courses>(client, 'search_courses', { first: 50 });
        expect(all.courses.map((course) => course.slug)).to.deep.equal(['wildcards', 'color-theory-studio', 'design-systems-for-product-teams', 'foundations-of-typography', 'prototyping-in-figma']);
        expect(all.totalCount).to.equal(5);
        expect(all.pageInfo).to.deep.equal({ hasNextPage: false, nextCursor: null });
        const typography = all.courses.find((course) => course.slug === 'foundations-of-typography');
        expect(typography).to.include({ title: 'Foundations of Typography', lectureCount: 11, url: `${school.origin}/courses/foundations-of-typography` });
        expect(typography?.price).to.deep.equal({ amount: 360000, currency: 'TWD' });
        expect(typography?.lecturers).to.deep.equal(['Liang Wu']);

        const first = await call<Courses>(client, 'search_courses', { first: 2 });
        expect(first.courses.map((course) => course.slug)).to.deep.equal(['wildcards', 'color-theory-studio']);
        expect(first.pageInfo.hasNextPage).to.equal(true);
        const second = await call<Courses>(client, 'search_courses', { first: 2, cursor: first.pageInfo.nextCursor });
        expect(second.courses.map((course) => course.slug)).to.deep.equal(['design-systems-for-product-teams', 'foundations-of-typography']);
        const third = await call<Courses>(client, 'search_courses', { first: 2, cursor: second.pageInfo.nextCursor });
        expect(third.courses.map((course) => course.slug)).to.deep.equal(['prototyping-in-figma']);
        expect(third.pageInfo).to.deep.equal({ hasNextPage: false, nextCursor: null });

        expect((await call<Courses>(client, 'search_courses', { query: 'TYPOGRAPHY' })).courses.map((course) => course.slug)).to.deep.equal(['wildcards', 'foundations-of-typography']);
        expect((await call<Courses>(client, 'search_courses', { query: 'design systems' })).courses.map((course) => course.slug)).to.deep.equal(['design-systems-for-product-teams']);
        expect((await call<Courses>(client, 'search_courses', { query: 'typography nothing-like-this' })).totalCount).to.equal(0);
        // LIKE wildcards in a query are literal characters.
        expect((await call<Courses>(client, 'search_courses', { query: '100%' })).courses.map((course) => course.slug)).to.deep.equal(['wildcards']);
        expect((await call<Courses>(client, 'search_courses', { query: '_' })).courses.map((course) => course.slug)).to.deep.equal(['wildcards']);
        expect((await call<Courses>(client, 'search_courses', { query: 'bootcamp' })).totalCount, 'the draft course').to.equal(0);

        const badCursor = await callError(client, 'search_courses', { cursor: 'not-a-cursor' });
        expect(badCursor.error).to.equal('invalid_request');
        const tooMany = await client.callTool({ name: 'search_courses', arguments: { first: 500 } });
        expect(tooMany.isError).to.equal(true);
        expect(textOf(tooMany)).to.match(/Input validation error/);
      });
      const beta = await withClient(school.server.siteB.origin, undefined, (client) => call<Courses>(client, 'search_courses'));
      expect(beta.courses.map((course) => course.slug), 'only the origin’s own school').to.deep.equal(['beta-course']);
    });

    it('get_course_syllabus gives titles and durations of a published course, the same the member syllabus has, and nothing for drafts', async () => {
      type Syllabus = { course: { id: string; slug: string }; sections: Array<{ title: string; position: number; durationSeconds: number; lectures: Array<{ title: string; position: number; durationSeconds: number; kind: string; isPreview: boolean }> }> };
      await withClient(school.origin, undefined, async (client) => {
        const bySlug = await call<Syllabus>(client, 'get_course_syllabus', { course: 'foundations-of-typography' });
        const byId = await call<Syllabus>(client, 'get_course_syllabus', { course: bySlug.course.id });
        expect(byId).to.deep.equal(bySlug);
        expect(bySlug.sections.map((section) => section.title)).to.deep.equal(['Reading Type', 'Setting Text', 'Type in Interfaces']);
        const first = bySlug.sections[0];
        expect(first?.lectures[0]).to.deep.equal({ title: 'Why typography matters', position: 1, kind: 'video', durationSeconds: 372, isPreview: true });
        expect(first?.durationSeconds).to.equal(first?.lectures.reduce((sum, lecture) => sum + lecture.durationSeconds, 0));
        for (const section of bySlug.sections) for (const lecture of section.lectures) expect(Object.keys(lecture).sort()).to.deep.equal(['durationSeconds', 'isPreview', 'kind', 'position', 'title']);

        // The member API's view of the same course (Mia is enrolled): same titles, order and durations.
        const graph = await school.ask<{ viewer: { enrolledCourses: { nodes: GqlCourse[] } } }>(school.tokens.full, `{ viewer { enrolledCourses(first: 50) { nodes { ${COURSE_FIELDS} } } } }`);
        const enrolled = graph.viewer.enrolledCourses.nodes.find((course) => course.slug === 'foundations-of-typography');
        expect(enrolled?.id).to.equal(bySlug.course.id);
        expect(bySlug.sections.map((section) => ({ title: section.title, position: section.position, lectures: section.lectures.map(({ title, position, durationSeconds }) => ({ title, position, duration: durationSeconds })) }))).to.deep.equal(
          enrolled?.sections.map((section) => ({ title: section.title, position: section.position, lectures: section.lectures.map(({ title, position, duration }) => ({ title, position, duration })) })),
        );

        for (const hidden of ['portfolio-review-bootcamp', 'archived-course', 'no-such-course', encodeNodeId('Course', 999999), encodeNodeId('Lecture', 1)]) {
          expect((await callError(client, 'get_course_syllabus', { course: hidden })).error, hidden).to.equal('not_found');
        }
      });
      await withClient(school.server.siteB.origin, undefined, async (client) => {
        expect((await callError(client, 'get_course_syllabus', { course: 'foundations-of-typography' })).error, 'another school’s course').to.equal('not_found');
      });
    });

    it('list_upcoming_events lists public, published events that have not ended, soonest first, without online links', async () => {
      type Events = { events: Array<Record<string, unknown>>; pageInfo: PageInfo; totalCount: number };
      const rows = (await school.db('events').where({ site_id: school.server.siteA.id, status: 'published', is_public: true }).where('ends_at', '>', new Date()).orderBy('starts_at').select('slug')) as Array<{ slug: string }>;
      await withClient(school.origin, undefined, async (client) => {
        const page = await call<Events>(client, 'list_upcoming_events', { first: 50 });
        expect(page.events.map((event) => event.slug)).to.deep.equal(rows.map((row) => row.slug));
        expect(page.events.map((event) => event.slug)).to.deep.equal(['happening-now', 'design-systems-meetup-taipei', 'portfolio-night-online']);
        const now = page.events[0];
        expect(now).to.include({ title: 'Happening Now', isOnline: false, venue: 'Studio 3', capacity: 2, spotsLeft: 1, url: `${school.origin}/events/happening-now` });
        const meetup = page.events[1];
        expect(meetup).to.include({ capacity: 80, spotsLeft: 78 }); // two live registrations, one canceled
        expect(meetup?.price).to.deep.equal({ amount: 50000, currency: 'TWD' });
        expect(JSON.stringify(page)).not.to.include('live.northwind-academy.example');
        const one = await call<Events>(client, 'list_upcoming_events', { first: 1 });
        const rest = await call<Events>(client, 'list_upcoming_events', { first: 5, cursor: one.pageInfo.nextCursor });
        expect([...one.events, ...rest.events].map((event) => event.slug)).to.deep.equal(page.events.map((event) => event.slug));
      });
    });

    it('list_consulting_services lists published services with their current weekly slots, the same slots the member API shows', async () => {
      type Services = { services: Array<{ id: string; title: string; price: unknown; courses: Array<{ slug: string }>; weeklySlots: Array<Record<string, unknown>> }>; totalCount: number };
      const page = await withClient(school.origin, undefined, (client) => call<Services>(client, 'list_consulting_services', { first: 50 }));
      expect(page.services.map((service) => service.title)).to.deep.equal(['Career Chat', 'Design Systems Office Hours', 'Portfolio Review 1:1']);
      const chat = page.services[0];
      expect(chat?.courses.map((course) => course.slug), 'published courses only').to.deep.equal(['wildcards']);
      expect(chat?.weeklySlots, 'expired slot left out, Monday first').to.deep.equal([
        { weekday: 'MONDAY', startTime: '18:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
        { weekday: 'SUNDAY', startTime: '10:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
      ]);
      expect(chat?.price).to.deep.equal({ amount: 50000, currency: 'TWD' });
      const graph = await school.ask<{ viewer: { consultingServices: { nodes: Array<{ id: string; title: string; slots: Array<Record<string, unknown>> }> } } }>(
        school.tokens.full,
        '{ viewer { consultingServices(first: 50) { nodes { id title slots { weekday startTime durationMinutes timezone capacity } } } } }',
      );
      expect(graph.viewer.consultingServices.nodes).to.have.length.above(0);
      for (const service of graph.viewer.consultingServices.nodes) {
        const listed = page.services.find((candidate) => candidate.id === service.id);
        expect(listed?.title).to.equal(service.title);
        expect(listed?.weeklySlots).to.deep.equal(service.slots);
      }
    });
  });
}
