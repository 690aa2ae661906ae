import { expect } from 'chai';
import { MemberContext } from '../src/member/context.js';
import { courseProgress } from '../src/member/courses.js';
import { issueToken, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';
import { makeCourse, recordProgress, type TestCourse } from './admin-people-fixtures.js';

type Enrollment = Schemas['EnrollmentWithProgress'];
type EnrollmentList = Schemas['EnrollmentList'];
type EnrollmentProgress = Schemas['EnrollmentProgress'];

const DAY = 86400000;
const inDays = (days: number): string => new Date(Date.now() + days * DAY).toISOString();

describeEachDatabase('admin API: students (enrollments and progress)', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: ['students:read', 'students:write'], roles: ['operator'] });
  let course: TestCourse;
  let otherCourse: TestCourse;
  let siteBCourse: TestCourse;

  before(async () => {
    course = await makeCourse(scratch().db, admin.server.siteA.id, 'Algebra');
    otherCourse = await makeCourse(scratch().db, admin.server.siteA.id, 'Geometry');
    siteBCourse = await makeCourse(scratch().db, admin.server.siteB.id, 'Elsewhere');
  });

  async function student(name = 'Stu Dent'): Promise<number> {
    return (await makeUser(scratch().db, admin.server.siteA, ['student'], name)).id;
  }

  async function enroll(body: Record<string, unknown>): Promise<{ enrollment: Enrollment; etag: string }> {
    const answer = await admin.api.call<Enrollment>('createEnrollment', { body });
    expect(answer.status, answer.text).to.equal(201);
    return { enrollment: answer.body, etag: answer.headers.get('etag') ?? '' };
  }

  it('enrolls a member for life or until a date, with Location, ETag and an empty progress summary', async () => {
    const userId = await student();
    const answer = await admin.api.call<Enrollment>('createEnrollment', { body: { userId, courseId: course.id, hasLifetimeAccess: true } });
    expect(answer.status, answer.text).to.equal(201);
    expect(answer.body).to.include({ userId, courseId: course.id, hasLifetimeAccess: true, expiresAt: null, access: 'active', source: 'grant', lastWatched: null });
    expect(answer.body.progress).to.deep.equal({ totalLectures: 3, completedLectures: 0, readLectures: 0, percent: 0 });
    expect(answer.headers.get('etag')).to.equal('"v1"');
    expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/enrollments/${answer.body.id}`);
    const read = await admin.api.call<Enrollment>('getEnrollment', { path: { enrollmentId: String(answer.body.id) } });
    expect(read.body).to.deep.equal(answer.body);
    const until = inDays(30);
    const { enrollment } = await enroll({ userId, courseId: otherCourse.id, expiresAt: until });
    expect(enrollment).to.include({ hasLifetimeAccess: false, expiresAt: until, access: 'active' });
  });

  it('refuses bad access, other sites’ courses, non-members and a second enrollment', async () => {
    const userId = await student();
    const both = await admin.api.call('createEnrollment', { body: { userId, courseId: course.id, expiresAt: inDays(1), hasLifetimeAccess: true } });
    expect(both.status).to.equal(400);
    expect((both.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/hasLifetimeAccess']);
    const neither = await admin.api.call('createEnrollment', { body: { userId, courseId: course.id } });
    expect(neither.status).to.equal(400);
    expect((neither.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['']);
    const past = await admin.api.call('createEnrollment', { body: { userId, courseId: course.id, expiresAt: inDays(-1) } });
    expect((past.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/expiresAt']);
    const foreignCourse = await admin.api.call('createEnrollment', { body: { userId, courseId: siteBCourse.id, hasLifetimeAccess: true } });
    expect(foreignCourse.status).to.equal(400);
    expect((foreignCourse.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/courseId']);
    const outsider = await makeUser(scratch().db, admin.server.siteB, ['student'], 'Outsider');
    const nonMember = await admin.api.call('createEnrollment', { body: { userId: outsider.id, courseId: course.id, hasLifetimeAccess: true } });
    expect(nonMember.status).to.equal(400);
    expect((nonMember.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/userId']);
    const unknown = await admin.api.call('createEnrollment', { body: { userId, courseId: course.id, hasLifetimeAccess: true, source: 'purchase' } });
    expect((unknown.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/source']);
    await enroll({ userId, courseId: course.id, hasLifetimeAccess: true });
    const again = await admin.api.call('createEnrollment', { body: { userId, courseId: course.id, expiresAt: inDays(3) } });
    expect(again.status).to.equal(409);
    expect(again.problem.code).to.equal('already_enrolled');
  });

  it('reports progress with the member API’s numbers, lecture by lecture in curriculum order', async () => {
    const userId = await student('Progress Pat');
    const { enrollment } = await enroll({ userId, courseId: course.id, hasLifetimeAccess: true });
    await recordProgress(scratch().db, userId, course, course.lectureIds[0] ?? 0, 'completed');
    await recordProgress(scratch().db, userId, course, course.lectureIds[2] ?? 0, 'read', 42);
    await scratch().db('enrollments').where({ id: enrollment.id }).update({ last_watched_lecture_id: course.lectureIds[2], last_watched_position_seconds: 42, last_watched_at: new Date() });
    const read = await admin.api.call<Enrollment>('getEnrollment', { path: { enrollmentId: String(enrollment.id) } });
    expect(read.body.progress).to.deep.equal({ totalLectures: 3, completedLectures: 1, readLectures: 1, percent: 33 });
    expect(read.body.lastWatched).to.include({ lectureId: course.lectureIds[2], positionSeconds: 42 });
    const member = await courseProgress(new MemberContext({ db: scratch().db, site: admin.server.siteA, userId }), course.id);
    expect(member.completedLecturesCount).to.equal(read.body.progress.completedLectures);
    expect(member.totalLecturesCount).to.equal(read.body.progress.totalLectures);
    expect(member.readLecturesCount).to.equal(read.body.progress.readLectures);
    const progress = await admin.api.call<EnrollmentProgress>('getEnrollmentProgress', { path: { enrollmentId: String(enrollment.id) } });
    expect(progress.status, progress.text).to.equal(200);
    expect(progress.body).to.include({ enrollmentId: enrollment.id, userId, courseId: course.id });
    expect(progress.body.summary).to.deep.equal(read.body.progress);
    expect(progress.body.lectures.map((lecture) => [lecture.lectureId, lecture.sectionPosition, lecture.position, lecture.state])).to.deep.equal([
      [course.lectureIds[0], 1, 1, 'completed'],
      [course.lectureIds[1], 1, 2, 'unread'],
      [course.lectureIds[2], 2, 1, 'read'],
    ]);
    expect(progress.body.lectures[0]).to.include({ sectionId: course.sectionIds[0], sectionTitle: 'First steps', title: 'Lecture 1' });
    expect(progress.body.lectures[0]?.completedAt).to.be.a('string');
    expect(progress.body.lectures[2]).to.include({ positionSeconds: 42, completedAt: null });
  });

  it('changes access with If-Match (428, 412), one of expiresAt and lifetime at a time', async () => {
    const userId = await student();
    const { enrollment, etag } = await enroll({ userId, courseId: course.id, hasLifetimeAccess: true });
    const path = { enrollmentId: String(enrollment.id) };
    expect((await admin.api.call('updateEnrollment', { path, body: { expiresAt: inDays(5) } })).status).to.equal(428);
    const noEnd = await admin.api.call('updateEnrollment', { path, headers: { 'if-match': etag }, body: { hasLifetimeAccess: false } });
    expect(noEnd.status).to.equal(400);
    expect((noEnd.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/expiresAt']);
    const both = await admin.api.call('updateEnrollment', { path, headers: { 'if-match': etag }, body: { hasLifetimeAccess: true, expiresAt: inDays(5) } });
    expect(both.status).to.equal(400);
    const until = inDays(5);
    const limited = await admin.api.call<Enrollment>('updateEnrollment', { path, headers: { 'if-match': etag }, body: { expiresAt: until }, contentType: 'application/merge-patch+json' });
    expect(limited.status, limited.text).to.equal(200);
    expect(limited.body).to.include({ hasLifetimeAccess: false, expiresAt: until, access: 'active' });
    expect(limited.headers.get('etag')).to.equal('"v2"');
    const stale = await admin.api.call('updateEnrollment', { path, headers: { 'if-match': etag }, body: { hasLifetimeAccess: true } });
    expect(stale.status).to.equal(412);
    const ended = await admin.api.call<Enrollment>('updateEnrollment', { path, headers: { 'if-match': '"v2"' }, body: { expiresAt: new Date().toISOString() } });
    expect(ended.body.access).to.equal('expired');
    const beforeEnrollment = await admin.api.call('updateEnrollment', { path, headers: { 'if-match': '"v3"' }, body: { expiresAt: '2000-01-01T00:00:00.000Z' } });
    expect((beforeEnrollment.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/expiresAt']);
    const lifetime = await admin.api.call<Enrollment>('updateEnrollment', { path, headers: { 'if-match': '"v3"' }, body: { hasLifetimeAccess: true } });
    expect(lifetime.body).to.include({ hasLifetimeAccess: true, expiresAt: null, access: 'active' });
    const races = await Promise.all([
      admin.api.call('updateEnrollment', { path, headers: { 'if-match': '"v4"' }, body: { expiresAt: inDays(1) } }),
      admin.api.call('updateEnrollment', { path, headers: { 'if-match': '"v4"' }, body: { expiresAt: inDays(2) } }),
    ]);
    expect(races.map((answer) => answer.status).sort()).to.deep.equal([200, 412]);
  });

  it('lists with filters (course, member, access), sorts and pages without repeats or gaps', async () => {
    const userId = await student('Lister');
    const first = await enroll({ userId, courseId: course.id, hasLifetimeAccess: true });
    const second = await enroll({ userId, courseId: otherCourse.id, expiresAt: inDays(2) });
    await admin.api.call('updateEnrollment', { path: { enrollmentId: String(second.enrollment.id) }, headers: { 'if-match': second.etag }, body: { expiresAt: new Date().toISOString() } });
    const mine = await admin.api.call<EnrollmentList>('listEnrollments', { query: { userId } });
    expect(mine.body.data.map((row) => row.id)).to.deep.equal([second.enrollment.id, first.enrollment.id]);
    const active = await admin.api.call<EnrollmentList>('listEnrollments', { query: { userId, access: 'active' } });
    expect(active.body.data.map((row) => row.id)).to.deep.equal([first.enrollment.id]);
    const expired = await admin.api.call<EnrollmentList>('listEnrollments', { query: { userId, access: 'expired' } });
    expect(expired.body.data.map((row) => row.id)).to.deep.equal([second.enrollment.id]);
    const inCourse = await admin.api.call<EnrollmentList>('listEnrollments', { query: { courseId: otherCourse.id, limit: 100 } });
    expect(inCourse.body.data.length).to.be.greaterThan(0);
    for (const row of inCourse.body.data) expect(row.courseId).to.equal(otherCourse.id);
    const byUpdate = await admin.api.call<EnrollmentList>('listEnrollments', { query: { userId, sort: '-updatedAt' } });
    expect(byUpdate.body.data[0]?.id).to.equal(second.enrollment.id);
    const oldestFirst = await admin.api.call<EnrollmentList>('listEnrollments', { query: { userId, sort: 'enrolledAt' } });
    expect(oldestFirst.body.data.map((row) => row.id)).to.deep.equal([first.enrollment.id, second.enrollment.id]);

    const all = (await admin.api.call<EnrollmentList>('listEnrollments', { query: { limit: 100 } })).body.data.map((row) => row.id);
    const paged: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: EnrollmentList } = await admin.api.call<EnrollmentList>('listEnrollments', { query: { limit: 3, ...(cursor ? { cursor } : {}) } });
      paged.push(...page.body.data.map((row) => row.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(paged).to.deep.equal(all);
    expect(all.length).to.be.greaterThan(3);
    const firstPage = await admin.api.call<EnrollmentList>('listEnrollments', { query: { limit: 1 } });
    const otherSort = await admin.api.call('listEnrollments', { query: { limit: 1, sort: 'updatedAt', cursor: firstPage.body.nextCursor ?? '' } });
    expect(otherSort.problem.code).to.equal('invalid_cursor');
    expect((await admin.api.call('listEnrollments', { query: { access: 'paused' } })).status).to.equal(400);
    const atB = await admin.apiB.call<EnrollmentList>('listEnrollments', { query: { userId } });
    expect(atB.body.data).to.deep.equal([]);
  });

  it('ends access on delete and keeps the progress, which comes back on re-enrollment', async () => {
    const userId = await student('Returner');
    const { enrollment } = await enroll({ userId, courseId: course.id, hasLifetimeAccess: true });
    await recordProgress(scratch().db, userId, course, course.lectureIds[1] ?? 0, 'completed');
    const path = { enrollmentId: String(enrollment.id) };
    expect((await admin.apiB.call('deleteEnrollment', { path })).status).to.equal(404);
    const deleted = await admin.api.call('deleteEnrollment', { path });
    expect(deleted.status).to.equal(204);
    expect((await admin.api.call('getEnrollment', { path })).status).to.equal(404);
    expect((await admin.api.call('getEnrollmentProgress', { path })).status).to.equal(404);
    expect((await admin.api.call('deleteEnrollment', { path })).status).to.equal(404);
    const kept = await scratch().db('lecture_progress').where({ user_id: userId, course_id: course.id }).count({ n: '*' });
    expect(Number(kept[0]?.n)).to.equal(1);
    const { enrollment: again } = await enroll({ userId, courseId: course.id, expiresAt: inDays(10) });
    expect(again.id).to.not.equal(enrollment.id);
    expect(again.progress).to.include({ completedLectures: 1, percent: 33 });
  });

  it("hides site A's enrollments from site B (404) and needs the students scopes (403)", async () => {
    const userId = await student();
    const { enrollment, etag } = await enroll({ userId, courseId: course.id, hasLifetimeAccess: true });
    const path = { enrollmentId: String(enrollment.id) };
    expect((await admin.apiB.call('getEnrollment', { path })).status).to.equal(404);
    expect((await admin.apiB.call('getEnrollmentProgress', { path })).status).to.equal(404);
    expect((await admin.apiB.call('updateEnrollment', { path, headers: { 'if-match': etag }, body: { hasLifetimeAccess: true } })).status).to.equal(404);
    const membersOnly = await issueToken(scratch().db, admin.server.siteA, { scopes: ['members:read', 'members:write'] });
    const denied = await admin.api.withToken(membersOnly.token).call('getEnrollment', { path });
    expect(denied.status).to.equal(403);
    expect(denied.headers.get('www-authenticate')).to.contain('scope="students:read"');
    const readOnly = await issueToken(scratch().db, admin.server.siteA, { scopes: ['students:read'] });
    const write = await admin.api.withToken(readOnly.token).call('deleteEnrollment', { path });
    expect(write.status).to.equal(403);
    expect(write.problem.code).to.equal('insufficient_scope');
  });
});
