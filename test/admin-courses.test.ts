import { expect } from 'chai';
import { type AdminApi, issueToken, type AdminResult, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';

type Course = Schemas['Course'];
type CourseList = Schemas['CourseList'];
type Lecturer = Schemas['Lecturer'];
type LecturerList = Schemas['LecturerList'];
type Section = Schemas['CourseSection'];
type Lecture = Schemas['Lecture'];

const COURSE_AREA_SCOPES = ['courses:read', 'courses:write', 'curriculum:read', 'curriculum:write', 'lecturers:read', 'lecturers:write'];

/** Walks every page of a list operation with `limit`, returning the ids in order. */
async function allPages(api: AdminApi, operationId: 'listCourses' | 'listLecturers', query: Record<string, string | number | boolean>): Promise<number[]> {
  const seen: number[] = [];
  let cursor: string | null = null;
  do {
    const page: AdminResult<{ data: Array<{ id: number }>; nextCursor: string | null }> = await api.call(operationId, { query: { ...query, ...(cursor === null ? {} : { cursor }) } });
    expect(page.status, page.text).to.equal(200);
    expect(page.body.data.length).to.be.at.most(Number(query.limit ?? 20));
    seen.push(...page.body.data.map((row) => row.id));
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return seen;
}

describeEachDatabase('admin API: courses and lecturers', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: COURSE_AREA_SCOPES });

  async function createCourse(body: Record<string, unknown>, client: AdminApi = admin.api): Promise<AdminResult<Course>> {
    const answer = await client.call<Course>('createCourse', { body });
    expect(answer.status, answer.text).to.equal(201);
    return answer;
  }

  async function createLecturer(name: string, client: AdminApi = admin.api, site = admin.server.siteA): Promise<Lecturer> {
    const user = await makeUser(scratch().db, site, ['student'], name);
    const answer = await client.call<Lecturer>('createLecturer', { body: { userId: user.id, displayName: name } });
    expect(answer.status, answer.text).to.equal(201);
    return answer.body;
  }

  async function enroll(courseId: number, site = admin.server.siteA): Promise<void> {
    const user = await makeUser(scratch().db, site, ['student'], 'Enrolled Member');
    const now = new Date();
    await scratch().db('enrollments').insert({ site_id: site.id, course_id: courseId, user_id: user.id, enrolled_at: now, has_lifetime_access: true, source: 'grant', created_at: now, updated_at: now });
  }

  describe('courses', () => {
    it('creates a draft course with Location and ETag, and reads it back', async () => {
      const answer = await createCourse({ slug: 'intro-to-typography', title: 'Intro to Typography' });
      expect(answer.headers.get('etag')).to.equal('"v1"');
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/courses/${answer.body.id}`);
      expect(answer.body).to.deep.include({
        slug: 'intro-to-typography',
        title: 'Intro to Typography',
        description: null,
        coverImageUrl: null,
        status: 'draft',
        price: null,
        lecturers: [],
        sectionCount: 0,
        lectureCount: 0,
        totalDurationSeconds: 0,
        enrollmentCount: 0,
      });
      const read = await admin.api.call<Course>('getCourse', { path: { courseId: String(answer.body.id) } });
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.equal(answer.body);
      expect(read.headers.get('etag')).to.equal('"v1"');

      const full = await createCourse({ slug: 'color-theory-2', title: 'Color Theory', description: 'Hue and value.', coverImageUrl: 'https://cdn.example/color.png', status: 'published', price: { amount: 4900, currency: 'USD' } });
      expect(full.body).to.deep.include({ status: 'published', description: 'Hue and value.', coverImageUrl: 'https://cdn.example/color.png', price: { amount: 4900, currency: 'USD' } });
    });

    it('refuses bad bodies with pointers: slug pattern, unknown members, negative prices, missing members', async () => {
      const schema = await admin.api.call('createCourse', { body: { slug: 'Not A Slug', title: '', color: 'red', status: 'live', price: { amount: 1.5, currency: 'usd' } } });
      expect(schema.status).to.equal(400);
      expect(schema.problem.code).to.equal('invalid_request');
      const pointers = (schema.problem.errors ?? []).map((error) => error.pointer);
      expect(pointers).to.include.members(['/slug', '/title', '/color', '/status']);
      expect(pointers.some((pointer) => pointer?.startsWith('/price'))).to.equal(true);

      const negative = await admin.api.call('createCourse', { body: { slug: 'negative-price', title: 'Negative', price: { amount: -1, currency: 'USD' } } });
      expect(negative.status).to.equal(400);
      expect(negative.problem.errors).to.deep.equal([{ pointer: '/price/amount', message: 'must not be negative' }]);

      const currency = await admin.api.call('createCourse', { body: { slug: 'unknown-currency', title: 'Unknown currency', price: { amount: 100, currency: 'XQZ' } } });
      expect(currency.status).to.equal(400);
      expect(currency.problem.errors).to.deep.equal([{ pointer: '/price/currency', message: 'is not an ISO 4217 currency code' }]);

      const missing = await admin.api.call('createCourse', { body: {} });
      expect(missing.status).to.equal(400);
      expect((missing.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/slug', '/title']);

      for (const slug of ['-leading', 'trailing-', 'double--hyphen', 'under_score']) {
        const answer = await admin.api.call('createCourse', { body: { slug, title: 'Bad slug' } });
        expect(answer.status, slug).to.equal(400);
        expect((answer.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/slug']);
      }
    });

    it('keeps slugs unique per site: 409 slug_taken on create and on update, while another site may reuse one', async () => {
      const first = await createCourse({ slug: 'unique-slug', title: 'First' });
      const clash = await admin.api.call('createCourse', { body: { slug: 'unique-slug', title: 'Second' } });
      expect(clash.status).to.equal(409);
      expect(clash.problem.code).to.equal('slug_taken');
      expect(clash.problem.detail).to.contain('unique-slug');
      await createCourse({ slug: 'unique-slug', title: 'Elsewhere' }, admin.apiB);

      const second = await createCourse({ slug: 'another-slug', title: 'Second' });
      const renamed = await admin.api.call('updateCourse', { path: { courseId: String(second.body.id) }, headers: { 'if-match': '"v1"' }, body: { slug: 'unique-slug' } });
      expect(renamed.status).to.equal(409);
      expect(renamed.problem.code).to.equal('slug_taken');
      // Keeping its own slug is not a clash.
      const own = await admin.api.call<Course>('updateCourse', { path: { courseId: String(first.body.id) }, headers: { 'if-match': '"v1"' }, body: { slug: 'unique-slug', title: 'First, renamed' } });
      expect(own.status, own.text).to.equal(200);
      expect(own.body.slug).to.equal('unique-slug');
    });

    it('updates with a merge patch under If-Match: 428 without, 412 when stale, null clears, {} keeps the ETag', async () => {
      const created = await createCourse({ slug: 'patch-me', title: 'Patch me', description: 'Old', price: { amount: 1000, currency: 'TWD' }, coverImageUrl: 'https://cdn.example/a.png' });
      const path = { courseId: String(created.body.id) };
      const missing = await admin.api.call('updateCourse', { path, body: { title: 'No precondition' } });
      expect(missing.status).to.equal(428);
      expect(missing.problem.code).to.equal('precondition_required');

      const updated = await admin.api.call<Course>('updateCourse', { path, headers: { 'if-match': '"v1"' }, contentType: 'application/merge-patch+json', body: { title: 'Patched', description: null, price: null, status: 'published' } });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body).to.deep.include({ title: 'Patched', description: null, price: null, status: 'published', coverImageUrl: 'https://cdn.example/a.png', slug: 'patch-me' });
      expect(updated.headers.get('etag')).to.equal('"v2"');

      const stale = await admin.api.call('updateCourse', { path, headers: { 'if-match': '"v1"' }, body: { title: 'Lost update' } });
      expect(stale.status).to.equal(412);
      expect(stale.problem.code).to.equal('precondition_failed');

      const empty = await admin.api.call<Course>('updateCourse', { path, headers: { 'if-match': '"v2"' }, body: {} });
      expect(empty.status).to.equal(200);
      expect(empty.headers.get('etag')).to.equal('"v2"');
      const emptyStale = await admin.api.call('updateCourse', { path, headers: { 'if-match': '"v1"' }, body: {} });
      expect(emptyStale.status).to.equal(412);

      const archived = await admin.api.call<Course>('updateCourse', { path, headers: { 'if-match': '"v2"' }, body: { status: 'archived', coverImageUrl: null } });
      expect(archived.body).to.deep.include({ status: 'archived', coverImageUrl: null });
      expect(archived.headers.get('etag')).to.equal('"v3"');

      const readOnly = await admin.api.call('updateCourse', { path, headers: { 'if-match': '"v3"' }, body: { id: 7, enrollmentCount: 3, title: null } });
      expect(readOnly.status).to.equal(400);
      expect((readOnly.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/id', '/enrollmentCount', '/title']);
      expect((await admin.api.call<Course>('getCourse', { path })).body.title).to.equal('Patched');
    });

    it('counts sections, lectures, durations and enrollments per course, in lists too', async () => {
      const course = (await createCourse({ slug: 'counted', title: 'Counted' })).body;
      const path = { courseId: String(course.id) };
      const sectionA = (await admin.api.call<Section>('createCourseSection', { path, body: { title: 'A' } })).body;
      const sectionB = (await admin.api.call<Section>('createCourseSection', { path, body: { title: 'B' } })).body;
      await admin.api.call<Section>('createCourseSection', { path, body: { title: 'Empty' } });
      for (const [sectionId, durationSeconds] of [
        [sectionA.id, 120],
        [sectionA.id, 300],
        [sectionB.id, 45],
      ] as const) {
        const lecture = await admin.api.call<Lecture>('createLecture', { path, body: { sectionId, title: `L ${durationSeconds}`, durationSeconds } });
        expect(lecture.status, lecture.text).to.equal(201);
      }
      await enroll(course.id);
      await enroll(course.id);
      const read = await admin.api.call<Course>('getCourse', { path });
      expect(read.body).to.deep.include({ sectionCount: 3, lectureCount: 3, totalDurationSeconds: 465, enrollmentCount: 2 });
      const listed = await admin.api.call<CourseList>('listCourses', { query: { q: 'counted' } });
      expect(listed.body.data).to.have.length(1);
      expect(listed.body.data[0]).to.deep.include({ id: course.id, sectionCount: 3, lectureCount: 3, totalDurationSeconds: 465, enrollmentCount: 2 });
      // The counts are derived: they change without changing the course's own ETag.
      expect(read.headers.get('etag')).to.equal('"v1"');
    });

    it('assigns lecturers in order, refuses profiles of other sites with pointers, and versions the change', async () => {
      const course = (await createCourse({ slug: 'taught', title: 'Taught' })).body;
      const path = { courseId: String(course.id) };
      const liang = await createLecturer('Liang Wu');
      const priya = await createLecturer('Priya Raman');
      const foreign = await createLecturer('Other Site Lecturer', admin.apiB, admin.server.siteB);

      const set = await admin.api.call<Course>('setCourseLecturers', { path, body: { lecturerIds: [priya.id, liang.id] } });
      expect(set.status, set.text).to.equal(200);
      expect(set.body.lecturers).to.deep.equal([
        { id: priya.id, displayName: 'Priya Raman' },
        { id: liang.id, displayName: 'Liang Wu' },
      ]);
      expect(set.headers.get('etag')).to.equal('"v2"');
      const again = await admin.api.call<Course>('setCourseLecturers', { path, body: { lecturerIds: [priya.id, liang.id] } });
      expect(again.headers.get('etag')).to.equal('"v2"');
      const swapped = await admin.api.call<Course>('setCourseLecturers', { path, body: { lecturerIds: [liang.id, priya.id] } });
      expect(swapped.body.lecturers.map((lecturer) => lecturer.id)).to.deep.equal([liang.id, priya.id]);
      expect(swapped.headers.get('etag')).to.equal('"v3"');
      expect((await admin.api.call<Course>('getCourse', { path })).body.lecturers.map((lecturer) => lecturer.id)).to.deep.equal([liang.id, priya.id]);

      const refused = await admin.api.call('setCourseLecturers', { path, body: { lecturerIds: [liang.id, foreign.id, 999999] } });
      expect(refused.status).to.equal(400);
      expect((refused.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/lecturerIds/1', '/lecturerIds/2']);
      const repeated = await admin.api.call('setCourseLecturers', { path, body: { lecturerIds: [liang.id, liang.id] } });
      expect(repeated.status).to.equal(400);
      const cleared = await admin.api.call<Course>('setCourseLecturers', { path, body: { lecturerIds: [] } });
      expect(cleared.body.lecturers).to.deep.equal([]);
      const unknownCourse = await admin.api.call('setCourseLecturers', { path: { courseId: '999999' }, body: { lecturerIds: [] } });
      expect(unknownCourse.status).to.equal(404);
    });

    it('refuses to delete a course with enrollments or order lines (409), and deletes one with its curriculum otherwise', async () => {
      const enrolled = (await createCourse({ slug: 'enrolled-course', title: 'Enrolled' })).body;
      await enroll(enrolled.id);
      const withEnrollments = await admin.api.call('deleteCourse', { path: { courseId: String(enrolled.id) } });
      expect(withEnrollments.status).to.equal(409);
      expect(withEnrollments.problem.code).to.equal('course_has_enrollments');
      expect(withEnrollments.problem.detail).to.match(/archive/i);

      const sold = (await createCourse({ slug: 'sold-course', title: 'Sold' })).body;
      const buyer = await makeUser(scratch().db, admin.server.siteA, ['student'], 'Buyer');
      const now = new Date();
      const [paymentId] = await scratch().db('payments').insert({ site_id: admin.server.siteA.id, user_id: buyer.id, trade_no: `T${Date.now()}`, amount: 100, currency: 'USD', payment_state: 'canceled', created_at: now, updated_at: now });
      await scratch().db('payment_line_items').insert({ payment_id: paymentId, position: 0, item_kind: 'course', item_id: sold.id, title: 'Sold', unit_amount: 100, amount: 100 });
      const inOrders = await admin.api.call('deleteCourse', { path: { courseId: String(sold.id) } });
      expect(inOrders.status).to.equal(409);
      expect(inOrders.problem.code).to.equal('course_in_orders');
      expect((await admin.api.call('getCourse', { path: { courseId: String(sold.id) } })).status).to.equal(200);

      const doomed = (await createCourse({ slug: 'doomed', title: 'Doomed' })).body;
      const path = { courseId: String(doomed.id) };
      const section = (await admin.api.call<Section>('createCourseSection', { path, body: { title: 'Only' } })).body;
      const lecture = (await admin.api.call<Lecture>('createLecture', { path, body: { sectionId: section.id, title: 'Only lecture' } })).body;
      const lecturer = await createLecturer('Doomed Lecturer');
      await admin.api.call('setCourseLecturers', { path, body: { lecturerIds: [lecturer.id] } });
      await scratch()
        .db('comments')
        .insert([
          { site_id: admin.server.siteA.id, user_id: buyer.id, target_kind: 'course', target_id: doomed.id, body: 'Nice', state: 'visible', created_at: now, updated_at: now },
          { site_id: admin.server.siteA.id, user_id: buyer.id, target_kind: 'lecture', target_id: lecture.id, body: 'Great', state: 'visible', created_at: now, updated_at: now },
          { site_id: admin.server.siteA.id, user_id: buyer.id, target_kind: 'course', target_id: sold.id, body: 'Keep me', state: 'visible', created_at: now, updated_at: now },
        ]);
      const deleted = await admin.api.call('deleteCourse', { path });
      expect(deleted.status, deleted.text).to.equal(204);
      expect(deleted.text).to.equal('');
      expect((await admin.api.call('getCourse', { path })).status).to.equal(404);
      expect((await admin.api.call('deleteCourse', { path })).status).to.equal(404);
      expect(await scratch().db('course_sections').where({ id: section.id }).first()).to.equal(undefined);
      expect(await scratch().db('lectures').where({ id: lecture.id }).first()).to.equal(undefined);
      const comments: Array<{ body: string }> = await scratch().db('comments').where({ user_id: buyer.id }).select('body');
      expect(comments.map((comment) => comment.body)).to.deep.equal(['Keep me']);
      // The lecturer profile stays; it no longer lists the course.
      expect((await admin.api.call<Lecturer>('getLecturer', { path: { lecturerId: String(lecturer.id) } })).body.courses).to.deep.equal([]);
    });

    it('pages through the list with every sort, filters by status and q, and refuses foreign cursors', async () => {
      for (const [slug, title, status] of [
        ['zebra-drawing', 'Zebra Drawing', 'published'],
        ['apple-still-life', 'apple Still Life', 'archived'],
        ['mango-sketching', 'Mango Sketching', 'published'],
        ['percent-50-off', 'Sale: 50% off_now', 'draft'],
      ] as const) {
        await createCourse({ slug, title, status });
      }
      const total = (await admin.api.call<CourseList>('listCourses', { query: { limit: 100 } })).body.data.length;
      expect(total).to.be.greaterThan(8);
      for (const sort of ['createdAt', '-createdAt', 'updatedAt', '-updatedAt', 'title', '-title']) {
        const ids = await allPages(admin.api, 'listCourses', { limit: 3, sort });
        expect(ids, sort).to.have.length(total);
        expect(new Set(ids).size, sort).to.equal(total);
      }
      const byTitle = (await admin.api.call<CourseList>('listCourses', { query: { limit: 100, sort: 'title' } })).body.data.map((course) => course.title);
      const byTitleDesc = (await admin.api.call<CourseList>('listCourses', { query: { limit: 100, sort: '-title' } })).body.data.map((course) => course.title);
      expect(byTitleDesc).to.deep.equal([...byTitle].reverse());
      const newest = (await admin.api.call<CourseList>('listCourses', { query: { limit: 100 } })).body.data.map((course) => course.createdAt);
      expect(newest).to.deep.equal([...newest].sort().reverse());

      const published = await admin.api.call<CourseList>('listCourses', { query: { status: 'published', limit: 100 } });
      expect(published.body.data.length).to.be.greaterThan(1);
      expect(published.body.data.every((course) => course.status === 'published')).to.equal(true);
      const archived = await admin.api.call<CourseList>('listCourses', { query: { status: 'archived', limit: 100 } });
      expect(archived.body.data.map((course) => course.slug)).to.include('apple-still-life');

      const search = await admin.api.call<CourseList>('listCourses', { query: { q: 'APPLE' } });
      expect(search.body.data.map((course) => course.slug)).to.deep.equal(['apple-still-life']);
      const bySlug = await admin.api.call<CourseList>('listCourses', { query: { q: 'sketching' } });
      expect(bySlug.body.data.map((course) => course.slug)).to.deep.equal(['mango-sketching']);
      // LIKE wildcards are matched literally.
      const percent = await admin.api.call<CourseList>('listCourses', { query: { q: '50%' } });
      expect(percent.body.data.map((course) => course.slug)).to.deep.equal(['percent-50-off']);
      const underscore = await admin.api.call<CourseList>('listCourses', { query: { q: 'f_n' } });
      expect(underscore.body.data.map((course) => course.slug)).to.deep.equal(['percent-50-off']);
      const nothing = await admin.api.call<CourseList>('listCourses', { query: { q: 'a_p' } });
      expect(nothing.body.data).to.deep.equal([]);

      const first = await admin.api.call<CourseList>('listCourses', { query: { limit: 1, status: 'published' } });
      const cursor = first.body.nextCursor ?? '';
      expect(cursor).to.not.equal('');
      const otherFilter = await admin.api.call('listCourses', { query: { limit: 1, status: 'draft', cursor } });
      expect(otherFilter.status).to.equal(400);
      expect(otherFilter.problem.code).to.equal('invalid_cursor');
      const otherSort = await admin.api.call('listCourses', { query: { limit: 1, status: 'published', sort: 'title', cursor } });
      expect(otherSort.problem.code).to.equal('invalid_cursor');
      const garbage = await admin.api.call('listCourses', { query: { cursor: 'bm9wZQ' } });
      expect(garbage.problem.code).to.equal('invalid_cursor');

      const badQuery = await admin.api.call('listCourses', { query: { status: 'deleted', sort: 'price' }, rawQuery: 'color=red' });
      expect(badQuery.status).to.equal(400);
      expect((badQuery.problem.errors ?? []).map((error) => error.parameter)).to.include.members(['status', 'sort', 'color']);
    });

    it('keeps sites apart: another site’s operator gets 404 and never sees the course in lists', async () => {
      const course = (await createCourse({ slug: 'site-a-only', title: 'Site A only' })).body;
      const path = { courseId: String(course.id) };
      for (const answer of [
        await admin.apiB.call('getCourse', { path }),
        await admin.apiB.call('updateCourse', { path, headers: { 'if-match': '"v1"' }, body: { title: 'Hijacked' } }),
        await admin.apiB.call('deleteCourse', { path }),
        await admin.apiB.call('setCourseLecturers', { path, body: { lecturerIds: [] } }),
      ]) {
        expect(answer.status, answer.text).to.equal(404);
        expect(answer.problem.code).to.equal('not_found');
      }
      const listB = await admin.apiB.call<CourseList>('listCourses', { query: { limit: 100 } });
      expect(listB.body.data.map((row) => row.id)).to.not.include(course.id);
      expect((await admin.api.call<Course>('getCourse', { path })).body.title).to.equal('Site A only');
    });

    it('needs the operation’s scope: 403 insufficient_scope otherwise', async () => {
      const { token } = await issueToken(scratch().db, admin.server.siteA, { scopes: ['courses:read', 'curriculum:write'] });
      const reader = admin.api.withToken(token);
      expect((await reader.call('listCourses')).status).to.equal(200);
      for (const answer of [await reader.call('createCourse', { body: { slug: 'nope', title: 'Nope' } }), await reader.call('deleteCourse', { path: { courseId: '1' } }), await reader.call('listLecturers')]) {
        expect(answer.status).to.equal(403);
        expect(answer.problem.code).to.equal('insufficient_scope');
        expect(answer.headers.get('www-authenticate')).to.contain('insufficient_scope');
      }
      expect((await admin.api.call('listCourses', { token: null })).status).to.equal(401);
    });
  });

  describe('lecturers', () => {
    it('creates a profile for a person with a role here, grants the lecturer role, and refuses a second one (409)', async () => {
      const student = await makeUser(scratch().db, admin.server.siteA, ['student'], 'Ava Lin');
      const created = await admin.api.call<Lecturer>('createLecturer', { body: { userId: student.id, displayName: 'Ava Lin', bio: 'Illustrator.', avatarUrl: 'https://cdn.example/ava.png' } });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.deep.include({ userId: student.id, displayName: 'Ava Lin', bio: 'Illustrator.', avatarUrl: 'https://cdn.example/ava.png', courses: [] });
      expect(created.headers.get('etag')).to.equal('"v1"');
      expect(created.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/lecturers/${created.body.id}`);
      const roles: Array<{ role: string }> = await scratch().db('site_roles').where({ site_id: admin.server.siteA.id, user_id: student.id }).orderBy('role').select('role');
      expect(roles.map((row) => row.role)).to.deep.equal(['lecturer', 'student']);

      const again = await admin.api.call('createLecturer', { body: { userId: student.id, displayName: 'Ava again' } });
      expect(again.status).to.equal(409);
      expect(again.problem.code).to.equal('lecturer_exists');

      const read = await admin.api.call<Lecturer>('getLecturer', { path: { lecturerId: String(created.body.id) } });
      expect(read.body).to.deep.equal(created.body);
      // A lecturer who already holds the role keeps exactly one lecturer role.
      const already = await makeUser(scratch().db, admin.server.siteA, ['lecturer'], 'Has Role');
      expect((await admin.api.call('createLecturer', { body: { userId: already.id, displayName: 'Has Role' } })).status).to.equal(201);
      expect(await scratch().db('site_roles').where({ site_id: admin.server.siteA.id, user_id: already.id }).select('role')).to.have.length(1);
    });

    it('refuses users without a role at this site, unknown users and bad bodies, with pointers', async () => {
      const elsewhere = await makeUser(scratch().db, admin.server.siteB, ['student'], 'Only At B');
      for (const userId of [elsewhere.id, 987654]) {
        const answer = await admin.api.call('createLecturer', { body: { userId, displayName: 'Nobody here' } });
        expect(answer.status).to.equal(400);
        expect(answer.problem.errors).to.deep.equal([{ pointer: '/userId', message: 'is not a user with a role at this site' }]);
      }
      expect(await scratch().db('site_roles').where({ site_id: admin.server.siteA.id, user_id: elsewhere.id }).first()).to.equal(undefined);
      const schema = await admin.api.call('createLecturer', { body: { userId: 0, displayName: '', avatarUrl: 'not a url', role: 'lecturer' } });
      expect(schema.status).to.equal(400);
      expect((schema.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/userId', '/displayName', '/avatarUrl', '/role']);
    });

    it('updates a profile under If-Match and lists the courses the lecturer teaches', async () => {
      const lecturer = await createLecturer('Noah Kim');
      const path = { lecturerId: String(lecturer.id) };
      expect((await admin.api.call('updateLecturer', { path, body: { bio: 'x' } })).status).to.equal(428);
      const updated = await admin.api.call<Lecturer>('updateLecturer', { path, headers: { 'if-match': '"v1"' }, body: { displayName: 'Noah K.', bio: 'Type designer.' } });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body).to.deep.include({ displayName: 'Noah K.', bio: 'Type designer.' });
      expect(updated.headers.get('etag')).to.equal('"v2"');
      expect((await admin.api.call('updateLecturer', { path, headers: { 'if-match': '"v1"' }, body: { bio: null } })).status).to.equal(412);
      const cleared = await admin.api.call<Lecturer>('updateLecturer', { path, headers: { 'if-match': '"v2"' }, body: { bio: null } });
      expect(cleared.body.bio).to.equal(null);
      const fixed = await admin.api.call('updateLecturer', { path, headers: { 'if-match': '"v3"' }, body: { userId: 5 } });
      expect(fixed.status).to.equal(400);
      expect(fixed.problem.errors).to.deep.include({ pointer: '/userId', message: 'is not a known member; unknown members are refused' });

      const beta = (await createCourse({ slug: 'noah-beta', title: 'Beta course' })).body;
      const alpha = (await createCourse({ slug: 'noah-alpha', title: 'Alpha course' })).body;
      for (const course of [beta, alpha]) await admin.api.call('setCourseLecturers', { path: { courseId: String(course.id) }, body: { lecturerIds: [lecturer.id] } });
      const read = await admin.api.call<Lecturer>('getLecturer', { path });
      expect(read.body.courses).to.deep.equal([
        { id: alpha.id, title: 'Alpha course' },
        { id: beta.id, title: 'Beta course' },
      ]);
      // Assigning courses does not change the profile's own ETag.
      expect(read.headers.get('etag')).to.equal('"v3"');
      const listed = await admin.api.call<LecturerList>('listLecturers', { query: { q: 'noah' } });
      expect(listed.body.data.map((row) => [row.id, row.courses.length])).to.deep.equal([[lecturer.id, 2]]);
    });

    it('refuses to delete a lecturer assigned to courses (409 naming them), then deletes and keeps the roles', async () => {
      const lecturer = await createLecturer('Sofia Garcia');
      const course = (await createCourse({ slug: 'sofia-course', title: 'Figure Drawing' })).body;
      await admin.api.call('setCourseLecturers', { path: { courseId: String(course.id) }, body: { lecturerIds: [lecturer.id] } });
      const path = { lecturerId: String(lecturer.id) };
      const refused = await admin.api.call('deleteLecturer', { path });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('lecturer_assigned');
      expect(refused.problem.detail).to.contain('"Figure Drawing"');
      await admin.api.call('setCourseLecturers', { path: { courseId: String(course.id) }, body: { lecturerIds: [] } });
      const deleted = await admin.api.call('deleteLecturer', { path });
      expect(deleted.status, deleted.text).to.equal(204);
      expect((await admin.api.call('getLecturer', { path })).status).to.equal(404);
      const roles: Array<{ role: string }> = await scratch().db('site_roles').where({ site_id: admin.server.siteA.id, user_id: lecturer.userId }).orderBy('role').select('role');
      expect(roles.map((row) => row.role)).to.deep.equal(['lecturer', 'student']);
    });

    it('pages through lecturers with both sorts and q, and keeps sites apart', async () => {
      for (const name of ['zoe Zimmer', 'Ahmed Ali', 'Mei Lin']) await createLecturer(name);
      const total = (await admin.api.call<LecturerList>('listLecturers', { query: { limit: 100 } })).body.data.length;
      expect(total).to.be.greaterThan(4);
      for (const sort of ['createdAt', '-createdAt', 'displayName', '-displayName']) {
        const ids = await allPages(admin.api, 'listLecturers', { limit: 2, sort });
        expect(ids, sort).to.have.length(total);
        expect(new Set(ids).size, sort).to.equal(total);
      }
      const search = await admin.api.call<LecturerList>('listLecturers', { query: { q: 'ZIMMER' } });
      expect(search.body.data.map((row) => row.displayName)).to.deep.equal(['zoe Zimmer']);
      const first = await admin.api.call<LecturerList>('listLecturers', { query: { limit: 1, q: 'i' } });
      const mismatched = await admin.api.call('listLecturers', { query: { limit: 1, q: 'e', cursor: first.body.nextCursor ?? 'x' } });
      expect(mismatched.problem.code).to.equal('invalid_cursor');

      const mine = search.body.data[0];
      expect(mine).to.not.equal(undefined);
      const path = { lecturerId: String(mine?.id) };
      for (const answer of [await admin.apiB.call('getLecturer', { path }), await admin.apiB.call('updateLecturer', { path, headers: { 'if-match': '"v1"' }, body: { bio: 'x' } }), await admin.apiB.call('deleteLecturer', { path })]) {
        expect(answer.status).to.equal(404);
      }
      const listB = await admin.apiB.call<LecturerList>('listLecturers', { query: { limit: 100 } });
      expect(listB.body.data.map((row) => row.id)).to.not.include(mine?.id);
    });
  });
});
