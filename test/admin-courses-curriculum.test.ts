import { expect } from 'chai';
import { issueToken, type AdminResult, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';

type Course = Schemas['Course'];
type Section = Schemas['CourseSection'];
type SectionList = Schemas['CourseSectionList'];
type Lecture = Schemas['Lecture'];
type LectureList = Schemas['LectureList'];
type Curriculum = Schemas['Curriculum'];

const SCOPES = ['courses:read', 'courses:write', 'curriculum:read', 'curriculum:write'];

describeEachDatabase('admin API: curriculum (sections and lectures)', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: SCOPES });
  let courseCounter = 0;

  async function newCourse(): Promise<{ id: number; path: { courseId: string } }> {
    courseCounter += 1;
    const answer = await admin.api.call<Course>('createCourse', { body: { slug: `curriculum-${courseCounter}`, title: `Curriculum ${courseCounter}` } });
    expect(answer.status, answer.text).to.equal(201);
    return { id: answer.body.id, path: { courseId: String(answer.body.id) } };
  }

  async function addSection(path: { courseId: string }, title: string, position?: number): Promise<AdminResult<Section>> {
    const answer = await admin.api.call<Section>('createCourseSection', { path, body: { title, ...(position === undefined ? {} : { position }) } });
    expect(answer.status, answer.text).to.equal(201);
    return answer;
  }

  async function addLecture(path: { courseId: string }, body: Record<string, unknown>): Promise<Lecture> {
    const answer = await admin.api.call<Lecture>('createLecture', { path, body });
    expect(answer.status, answer.text).to.equal(201);
    return answer.body;
  }

  /** The syllabus as titles, checking on the way that every position is dense and 0-based. */
  async function outline(path: { courseId: string }): Promise<Array<[string, string[]]>> {
    const answer = await admin.api.call<Curriculum>('getCourseCurriculum', { path });
    expect(answer.status, answer.text).to.equal(200);
    answer.body.sections.forEach((section, index) => {
      expect(section.position, section.title).to.equal(index);
      section.lectures.forEach((lecture, at) => {
        expect(lecture.position, lecture.title).to.equal(at);
        expect(lecture.sectionId).to.equal(section.id);
      });
    });
    return answer.body.sections.map((section) => [section.title, section.lectures.map((lecture) => lecture.title)]);
  }

  async function etagOf(operationId: 'getCourseSection' | 'getLecture', path: Record<string, string>): Promise<string | null> {
    return (await admin.api.call(operationId, { path })).headers.get('etag');
  }

  describe('sections', () => {
    it('appends and inserts sections, keeping positions 0..n-1 and versioning the ones that shift', async () => {
      const { path } = await newCourse();
      const first = await addSection(path, 'Basics');
      expect(first.body).to.deep.include({ title: 'Basics', position: 0, lectureCount: 0, durationSeconds: 0 });
      expect(first.headers.get('etag')).to.equal('"v1"');
      expect(first.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/courses/${path.courseId}/sections/${first.body.id}`);
      await addSection(path, 'Advanced');
      const inserted = await addSection(path, 'Welcome', 0);
      expect(inserted.body.position).to.equal(0);
      await addSection(path, 'Middle', 2);
      expect(await outline(path)).to.deep.equal([
        ['Welcome', []],
        ['Basics', []],
        ['Middle', []],
        ['Advanced', []],
      ]);
      // Basics moved from 0 to 1: a new representation, a new ETag.
      expect(await etagOf('getCourseSection', { ...path, sectionId: String(first.body.id) })).to.equal('"v2"');

      const tooFar = await admin.api.call('createCourseSection', { path, body: { title: 'Nowhere', position: 5 } });
      expect(tooFar.status).to.equal(400);
      expect(tooFar.problem.errors).to.deep.equal([{ pointer: '/position', message: 'must be at most 4 (the number of sections)' }]);
      const bad = await admin.api.call('createCourseSection', { path, body: { title: '', position: -1, lectures: [] } });
      expect(bad.status).to.equal(400);
      expect((bad.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/title', '/position', '/lectures']);
      const atEnd = await addSection(path, 'Last', 4);
      expect(atEnd.body.position).to.equal(4);
    });

    it('renames and moves sections under If-Match; the others shift to stay dense', async () => {
      const { path } = await newCourse();
      const ids: number[] = [];
      for (const title of ['S0', 'S1', 'S2', 'S3']) ids.push((await addSection(path, title)).body.id);
      const sectionPath = { ...path, sectionId: String(ids[0]) };
      expect((await admin.api.call('updateCourseSection', { path: sectionPath, body: { position: 2 } })).status).to.equal(428);
      const moved = await admin.api.call<Section>('updateCourseSection', { path: sectionPath, headers: { 'if-match': '"v1"' }, body: { position: 2, title: 'S0 moved' } });
      expect(moved.status, moved.text).to.equal(200);
      expect(moved.body).to.deep.include({ position: 2, title: 'S0 moved' });
      expect(moved.headers.get('etag')).to.equal('"v2"');
      expect((await outline(path)).map(([title]) => title)).to.deep.equal(['S1', 'S2', 'S0 moved', 'S3']);
      expect(await etagOf('getCourseSection', { ...path, sectionId: String(ids[3]) })).to.equal('"v1"');

      const stale = await admin.api.call('updateCourseSection', { path: sectionPath, headers: { 'if-match': '"v1"' }, body: { position: 0 } });
      expect(stale.status).to.equal(412);
      const back = await admin.api.call<Section>('updateCourseSection', { path: { ...path, sectionId: String(ids[3]) }, headers: { 'if-match': '"v1"' }, body: { position: 0 } });
      expect(back.body.position).to.equal(0);
      expect((await outline(path)).map(([title]) => title)).to.deep.equal(['S3', 'S1', 'S2', 'S0 moved']);
      const tooFar = await admin.api.call('updateCourseSection', { path: sectionPath, headers: { 'if-match': '"v3"' }, body: { position: 4 } });
      expect(tooFar.status).to.equal(400);
      expect(tooFar.problem.errors).to.deep.equal([{ pointer: '/position', message: 'must be at most 3 (the number of sections minus one)' }]);
      const unchanged = await admin.api.call<Section>('updateCourseSection', { path: sectionPath, headers: { 'if-match': '"v3"' }, body: { position: 3 } });
      expect(unchanged.status, unchanged.text).to.equal(200);
      expect(unchanged.headers.get('etag')).to.equal('"v3"');
    });

    it('lists sections in syllabus order by default, pages through every sort, and refuses foreign cursors', async () => {
      const { path } = await newCourse();
      for (const title of ['delta', 'Alpha', 'charlie', 'Bravo', 'echo']) await addSection(path, title);
      await addSection(path, 'First', 0);
      const all = await admin.api.call<SectionList>('listCourseSections', { path, query: { limit: 100 } });
      expect(all.body.data.map((section) => section.title)).to.deep.equal(['First', 'delta', 'Alpha', 'charlie', 'Bravo', 'echo']);
      expect(all.body.data.map((section) => section.position)).to.deep.equal([0, 1, 2, 3, 4, 5]);
      for (const sort of ['position', '-position', 'createdAt', '-createdAt', 'updatedAt', '-updatedAt', 'title', '-title']) {
        const seen: number[] = [];
        let cursor: string | null = null;
        do {
          const page: AdminResult<SectionList> = await admin.api.call<SectionList>('listCourseSections', { path, query: { limit: 4, sort, ...(cursor === null ? {} : { cursor }) } });
          expect(page.status, page.text).to.equal(200);
          seen.push(...page.body.data.map((section) => section.id));
          cursor = page.body.nextCursor;
        } while (cursor !== null);
        expect(new Set(seen).size, sort).to.equal(6);
        expect(seen, sort).to.have.length(6);
      }
      const reversed = await admin.api.call<SectionList>('listCourseSections', { path, query: { sort: '-position' } });
      expect(reversed.body.data.map((section) => section.position)).to.deep.equal([5, 4, 3, 2, 1, 0]);
      const first = await admin.api.call<SectionList>('listCourseSections', { path, query: { limit: 2 } });
      const other = await newCourse();
      const foreign = await admin.api.call('listCourseSections', { path: other.path, query: { limit: 2, cursor: first.body.nextCursor ?? 'x' } });
      expect(foreign.status).to.equal(400);
      expect(foreign.problem.code).to.equal('invalid_cursor');
    });

    it('keeps positions dense when editors insert and move at the same time', async () => {
      const { path } = await newCourse();
      const base = (await addSection(path, 'Base')).body;
      const answers = await Promise.all([
        ...['P1', 'P2', 'P3', 'P4', 'P5', 'P6'].map((title) => admin.api.call<Section>('createCourseSection', { path, body: { title, position: 0 } })),
        admin.api.call<Section>('updateCourseSection', { path: { ...path, sectionId: String(base.id) }, headers: { 'if-match': '"v1"' }, body: { title: 'Base renamed' } }),
      ]);
      for (const answer of answers.slice(0, 6)) expect(answer.status, answer.text).to.equal(201);
      // The rename raced the inserts that shift Base: it either won (200) or lost its version to a shift (412).
      expect([200, 412]).to.include(answers[6]?.status);
      const titles = await outline(path);
      expect(titles).to.have.length(7);
      expect(new Set(titles.map(([title]) => title)).size).to.equal(7);
    });

    it('deletes only empty sections (409 section_not_empty), renumbering the rest', async () => {
      const { path } = await newCourse();
      const a = (await addSection(path, 'A')).body;
      const b = (await addSection(path, 'B')).body;
      await addSection(path, 'C');
      await addLecture(path, { sectionId: a.id, title: 'In A' });
      const refused = await admin.api.call('deleteCourseSection', { path: { ...path, sectionId: String(a.id) } });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('section_not_empty');
      expect(refused.problem.detail).to.contain('1 lecture');
      const deleted = await admin.api.call('deleteCourseSection', { path: { ...path, sectionId: String(b.id) } });
      expect(deleted.status, deleted.text).to.equal(204);
      expect(await outline(path)).to.deep.equal([
        ['A', ['In A']],
        ['C', []],
      ]);
      expect((await admin.api.call('getCourseSection', { path: { ...path, sectionId: String(b.id) } })).status).to.equal(404);
    });
  });

  describe('lectures', () => {
    it('creates lectures with defaults, lock and drip fields, inserting at a position', async () => {
      const { path } = await newCourse();
      const section = (await addSection(path, 'Only')).body;
      const created = await admin.api.call<Lecture>('createLecture', { path, body: { sectionId: section.id, title: 'Welcome' } });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.deep.include({ sectionId: section.id, title: 'Welcome', position: 0, kind: 'video', durationSeconds: 0, locked: false, unlockAt: null, isPreview: false });
      expect(created.headers.get('etag')).to.equal('"v1"');
      expect(created.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/courses/${path.courseId}/lectures/${created.body.id}`);
      const dripped = await addLecture(path, { sectionId: section.id, title: 'Dripped', kind: 'quiz', durationSeconds: 600, locked: true, unlockAt: '2031-05-01T09:30:00.250Z', isPreview: true });
      expect(dripped).to.deep.include({ position: 1, kind: 'quiz', durationSeconds: 600, locked: true, unlockAt: '2031-05-01T09:30:00.250Z', isPreview: true });
      await addLecture(path, { sectionId: section.id, title: 'Intro', position: 0 });
      expect(await outline(path)).to.deep.equal([['Only', ['Intro', 'Welcome', 'Dripped']]]);
      expect(await etagOf('getLecture', { ...path, lectureId: String(created.body.id) })).to.equal('"v2"');
      const read = await admin.api.call<Lecture>('getLecture', { path: { ...path, lectureId: String(dripped.id) } });
      expect(read.body).to.deep.equal({ ...dripped, position: 2, updatedAt: read.body.updatedAt, createdAt: dripped.createdAt });

      const other = await newCourse();
      const otherSection = (await addSection(other.path, 'Elsewhere')).body;
      const wrongSection = await admin.api.call('createLecture', { path, body: { sectionId: otherSection.id, title: 'Misplaced' } });
      expect(wrongSection.status).to.equal(400);
      expect(wrongSection.problem.errors).to.deep.equal([{ pointer: '/sectionId', message: 'is not a section of this course' }]);
      const tooFar = await admin.api.call('createLecture', { path, body: { sectionId: section.id, title: 'Far', position: 4 } });
      expect(tooFar.problem.errors).to.deep.equal([{ pointer: '/position', message: 'must be at most 3 (the number of lectures in the section)' }]);
      const schema = await admin.api.call('createLecture', { path, body: { sectionId: section.id, title: 'Bad', kind: 'slides', durationSeconds: -5, unlockAt: 'tomorrow', locked: 'yes', courseId: 3 } });
      expect(schema.status).to.equal(400);
      expect((schema.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/kind', '/durationSeconds', '/unlockAt', '/locked', '/courseId']);
    });

    it('moves lectures within and across sections, keeping both sections dense', async () => {
      const { path } = await newCourse();
      const a = (await addSection(path, 'A')).body;
      const b = (await addSection(path, 'B')).body;
      const lectures: Record<string, Lecture> = {};
      for (const title of ['a0', 'a1', 'a2', 'a3']) lectures[title] = await addLecture(path, { sectionId: a.id, title });
      for (const title of ['b0', 'b1']) lectures[title] = await addLecture(path, { sectionId: b.id, title });
      const lecturePath = (title: string) => ({ ...path, lectureId: String(lectures[title]?.id) });

      const within = await admin.api.call<Lecture>('updateLecture', { path: lecturePath('a0'), headers: { 'if-match': '"v1"' }, body: { position: 3 } });
      expect(within.status, within.text).to.equal(200);
      expect(within.body.position).to.equal(3);
      expect(await outline(path)).to.deep.equal([
        ['A', ['a1', 'a2', 'a3', 'a0']],
        ['B', ['b0', 'b1']],
      ]);
      const across = await admin.api.call<Lecture>('updateLecture', { path: lecturePath('a2'), headers: { 'if-match': '"v2"' }, body: { sectionId: b.id, position: 1 } });
      expect(across.status, across.text).to.equal(200);
      expect(across.body).to.deep.include({ sectionId: b.id, position: 1 });
      expect(await outline(path)).to.deep.equal([
        ['A', ['a1', 'a3', 'a0']],
        ['B', ['b0', 'a2', 'b1']],
      ]);
      const toEnd = await admin.api.call<Lecture>('updateLecture', { path: lecturePath('a1'), headers: { 'if-match': '"v2"' }, body: { sectionId: b.id, title: 'a1 renamed' } });
      expect(toEnd.body).to.deep.include({ sectionId: b.id, position: 3, title: 'a1 renamed' });
      expect(await outline(path)).to.deep.equal([
        ['A', ['a3', 'a0']],
        ['B', ['b0', 'a2', 'b1', 'a1 renamed']],
      ]);
      const a3 = await admin.api.call<Lecture>('getLecture', { path: lecturePath('a3') });
      expect(a3.body.position).to.equal(0);
      const tooFar = await admin.api.call('updateLecture', { path: lecturePath('a3'), headers: { 'if-match': a3.headers.get('etag') ?? '' }, body: { position: 2 } });
      expect(tooFar.problem.errors).to.deep.equal([{ pointer: '/position', message: 'must be at most 1 (the number of lectures in the section minus one)' }]);
      const other = await newCourse();
      const foreignSection = (await addSection(other.path, 'Foreign')).body;
      const wrongSection = await admin.api.call('updateLecture', { path: lecturePath('a3'), headers: { 'if-match': a3.headers.get('etag') ?? '' }, body: { sectionId: foreignSection.id } });
      expect(wrongSection.status).to.equal(400);
      expect(wrongSection.problem.errors).to.deep.equal([{ pointer: '/sectionId', message: 'is not a section of this course' }]);
    });

    it('patches lock, drip and preview fields under If-Match; null clears unlockAt', async () => {
      const { path } = await newCourse();
      const section = (await addSection(path, 'S')).body;
      const lecture = await addLecture(path, { sectionId: section.id, title: 'Drip me' });
      const lecturePath = { ...path, lectureId: String(lecture.id) };
      expect((await admin.api.call('updateLecture', { path: lecturePath, body: { locked: true } })).status).to.equal(428);
      const locked = await admin.api.call<Lecture>('updateLecture', { path: lecturePath, headers: { 'if-match': '"v1"' }, contentType: 'application/merge-patch+json', body: { locked: true, unlockAt: '2030-01-01T00:00:00.000Z', isPreview: true, kind: 'text', durationSeconds: 90 } });
      expect(locked.status, locked.text).to.equal(200);
      expect(locked.body).to.deep.include({ locked: true, unlockAt: '2030-01-01T00:00:00.000Z', isPreview: true, kind: 'text', durationSeconds: 90 });
      expect(locked.headers.get('etag')).to.equal('"v2"');
      expect((await admin.api.call('updateLecture', { path: lecturePath, headers: { 'if-match': '"v1"' }, body: { locked: false } })).status).to.equal(412);
      const cleared = await admin.api.call<Lecture>('updateLecture', { path: lecturePath, headers: { 'if-match': '"v2"' }, body: { unlockAt: null, locked: false } });
      expect(cleared.body).to.deep.include({ unlockAt: null, locked: false, isPreview: true });
      const nonNullable = await admin.api.call('updateLecture', { path: lecturePath, headers: { 'if-match': '"v3"' }, body: { locked: null, title: null } });
      expect(nonNullable.status).to.equal(400);
      expect((nonNullable.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/locked', '/title']);
      const empty = await admin.api.call<Lecture>('updateLecture', { path: lecturePath, headers: { 'if-match': '"v3"' }, body: {} });
      expect(empty.headers.get('etag')).to.equal('"v3"');
    });

    it('returns the whole syllabus tree with totals, and lists lectures in the same order, by section on request', async () => {
      const { path } = await newCourse();
      const second = (await addSection(path, 'Second')).body;
      const first = (await addSection(path, 'First', 0)).body;
      await addSection(path, 'Empty');
      await addLecture(path, { sectionId: second.id, title: 's1', durationSeconds: 30 });
      await addLecture(path, { sectionId: first.id, title: 'f1', durationSeconds: 100 });
      await addLecture(path, { sectionId: second.id, title: 's0', durationSeconds: 20, position: 0 });
      await addLecture(path, { sectionId: first.id, title: 'f2', durationSeconds: 5 });
      const tree = await admin.api.call<Curriculum>('getCourseCurriculum', { path });
      expect(tree.body).to.deep.include({ courseId: Number(path.courseId), sectionCount: 3, lectureCount: 4, totalDurationSeconds: 155 });
      expect(tree.body.sections.map((section) => [section.title, section.durationSeconds])).to.deep.equal([
        ['First', 105],
        ['Second', 50],
        ['Empty', 0],
      ]);
      expect(await outline(path)).to.deep.equal([
        ['First', ['f1', 'f2']],
        ['Second', ['s0', 's1']],
        ['Empty', []],
      ]);
      const sections = await admin.api.call<SectionList>('listCourseSections', { path });
      expect(sections.body.data.map((section) => [section.title, section.lectureCount, section.durationSeconds])).to.deep.equal([
        ['First', 2, 105],
        ['Second', 2, 50],
        ['Empty', 0, 0],
      ]);

      const syllabus = ['f1', 'f2', 's0', 's1'];
      const listed = await admin.api.call<LectureList>('listLectures', { path });
      expect(listed.body.data.map((lecture) => lecture.title)).to.deep.equal(syllabus);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: AdminResult<LectureList> = await admin.api.call<LectureList>('listLectures', { path, query: { limit: 1, ...(cursor === null ? {} : { cursor }) } });
        paged.push(...page.body.data.map((lecture) => lecture.title));
        cursor = page.body.nextCursor;
      } while (cursor !== null);
      expect(paged).to.deep.equal(syllabus);
      const backwards = await admin.api.call<LectureList>('listLectures', { path, query: { sort: '-position' } });
      expect(backwards.body.data.map((lecture) => lecture.title)).to.deep.equal([...syllabus].reverse());
      for (const sort of ['createdAt', '-createdAt', 'updatedAt', '-updatedAt', 'title', '-title']) {
        const seen: number[] = [];
        let next: string | null = null;
        do {
          const page: AdminResult<LectureList> = await admin.api.call<LectureList>('listLectures', { path, query: { limit: 3, sort, ...(next === null ? {} : { cursor: next }) } });
          expect(page.status, page.text).to.equal(200);
          seen.push(...page.body.data.map((lecture) => lecture.id));
          next = page.body.nextCursor;
        } while (next !== null);
        expect(new Set(seen).size, sort).to.equal(4);
        expect(seen, sort).to.have.length(4);
      }
      const titles = (await admin.api.call<LectureList>('listLectures', { path, query: { sort: 'title' } })).body.data.map((lecture) => lecture.title);
      expect(titles).to.deep.equal(['f1', 'f2', 's0', 's1']);

      const ofSecond = await admin.api.call<LectureList>('listLectures', { path, query: { sectionId: second.id } });
      expect(ofSecond.body.data.map((lecture) => lecture.title)).to.deep.equal(['s0', 's1']);
      const firstPage = await admin.api.call<LectureList>('listLectures', { path, query: { limit: 1, sectionId: second.id } });
      const switched = await admin.api.call('listLectures', { path, query: { limit: 1, sectionId: first.id, cursor: firstPage.body.nextCursor ?? 'x' } });
      expect(switched.problem.code).to.equal('invalid_cursor');
      const other = await newCourse();
      const foreignSection = (await addSection(other.path, 'Foreign')).body;
      const badFilter = await admin.api.call('listLectures', { path, query: { sectionId: foreignSection.id } });
      expect(badFilter.status).to.equal(400);
      expect(badFilter.problem.errors).to.deep.equal([{ parameter: 'sectionId', message: 'is not a section of this course' }]);
    });

    it('refuses to delete a lecture with members’ progress or resume point (409), deletes others and renumbers', async () => {
      const { id: courseId, path } = await newCourse();
      const section = (await addSection(path, 'S')).body;
      const withProgress = await addLecture(path, { sectionId: section.id, title: 'Watched' });
      const resumed = await addLecture(path, { sectionId: section.id, title: 'Resumed' });
      const free = await addLecture(path, { sectionId: section.id, title: 'Unwatched' });
      const last = await addLecture(path, { sectionId: section.id, title: 'Last' });
      const member = await makeUser(scratch().db, admin.server.siteA, ['student'], 'Watcher');
      const now = new Date();
      await scratch().db('lecture_progress').insert({ user_id: member.id, lecture_id: withProgress.id, course_id: courseId, state: 'read', position_seconds: 12, created_at: now, updated_at: now });
      await scratch().db('enrollments').insert({ site_id: admin.server.siteA.id, course_id: courseId, user_id: member.id, enrolled_at: now, has_lifetime_access: true, source: 'grant', last_watched_lecture_id: resumed.id, last_watched_position_seconds: 5, last_watched_at: now, created_at: now, updated_at: now });
      for (const lecture of [withProgress, resumed]) {
        const refused = await admin.api.call('deleteLecture', { path: { ...path, lectureId: String(lecture.id) } });
        expect(refused.status).to.equal(409);
        expect(refused.problem.code).to.equal('lecture_has_progress');
        expect(refused.problem.detail).to.match(/lock/i);
      }
      const deleted = await admin.api.call('deleteLecture', { path: { ...path, lectureId: String(free.id) } });
      expect(deleted.status, deleted.text).to.equal(204);
      expect(await outline(path)).to.deep.equal([['S', ['Watched', 'Resumed', 'Last']]]);
      expect(await etagOf('getLecture', { ...path, lectureId: String(last.id) })).to.equal('"v2"');
      expect((await admin.api.call('getLecture', { path: { ...path, lectureId: String(free.id) } })).status).to.equal(404);
      // Locking is the way out.
      const lockedAnswer = await admin.api.call<Lecture>('updateLecture', { path: { ...path, lectureId: String(withProgress.id) }, headers: { 'if-match': '"v1"' }, body: { locked: true } });
      expect(lockedAnswer.body.locked).to.equal(true);
    });

    it('finds curriculum rows only through their own course and site: 404 otherwise', async () => {
      const one = await newCourse();
      const two = await newCourse();
      const section = (await addSection(one.path, 'Mine')).body;
      const lecture = await addLecture(one.path, { sectionId: section.id, title: 'Mine' });
      for (const answer of [
        await admin.api.call('getCourseSection', { path: { ...two.path, sectionId: String(section.id) } }),
        await admin.api.call('getLecture', { path: { ...two.path, lectureId: String(lecture.id) } }),
        await admin.api.call('deleteLecture', { path: { ...two.path, lectureId: String(lecture.id) } }),
        await admin.api.call('updateCourseSection', { path: { ...two.path, sectionId: String(section.id) }, headers: { 'if-match': '"v1"' }, body: { title: 'x' } }),
        await admin.api.call('getCourseCurriculum', { path: { courseId: '999999' } }),
        await admin.apiB.call('getCourseCurriculum', { path: one.path }),
        await admin.apiB.call('listCourseSections', { path: one.path }),
        await admin.apiB.call('listLectures', { path: one.path }),
        await admin.apiB.call('createCourseSection', { path: one.path, body: { title: 'Intruder' } }),
        await admin.apiB.call('createLecture', { path: one.path, body: { sectionId: section.id, title: 'Intruder' } }),
        await admin.apiB.call('getCourseSection', { path: { ...one.path, sectionId: String(section.id) } }),
        await admin.apiB.call('updateLecture', { path: { ...one.path, lectureId: String(lecture.id) }, headers: { 'if-match': '"v1"' }, body: { locked: true } }),
        await admin.apiB.call('deleteCourseSection', { path: { ...one.path, sectionId: String(section.id) } }),
      ]) {
        expect(answer.status, answer.text).to.equal(404);
        expect(answer.problem.code).to.equal('not_found');
      }
      expect(await outline(one.path)).to.deep.equal([['Mine', ['Mine']]]);
    });

    it('needs the curriculum scopes: 403 insufficient_scope with only the course scopes', async () => {
      const { path } = await newCourse();
      const { token } = await issueToken(scratch().db, admin.server.siteA, { scopes: ['courses:read', 'courses:write', 'curriculum:read'] });
      const reader = admin.api.withToken(token);
      expect((await reader.call('getCourseCurriculum', { path })).status).to.equal(200);
      for (const answer of [await reader.call('createCourseSection', { path, body: { title: 'No' } }), await reader.call('deleteLecture', { path: { ...path, lectureId: '1' } })]) {
        expect(answer.status).to.equal(403);
        expect(answer.problem.code).to.equal('insufficient_scope');
      }
    });
  });
});
