/**
 * Rows the people tests need that belong to other areas (courses, curriculum, progress), written straight into the
 * tables the way the importer writes them. (Not a test file: mocha's spec glob is test/*.test.ts.)
 */
import type { Database } from '../src/db/connection.js';

export interface TestCourse {
  id: number;
  sectionIds: number[];
  /** Lecture ids in curriculum order. */
  lectureIds: number[];
}

let counter = 0;

/** A course with two sections: the first with two lectures, the second with one (inserted out of order on purpose). */
export async function makeCourse(db: Database, siteId: number, title = 'Course'): Promise<TestCourse> {
  counter += 1;
  const now = new Date();
  const [courseId] = await db('courses').insert({ site_id: siteId, slug: `course-${counter}-${Date.now()}`, title, status: 'published', version: 1, created_at: now, updated_at: now });
  const course = Number(courseId);
  const [second] = await db('course_sections').insert({ course_id: course, title: 'Second steps', position: 2, created_at: now, updated_at: now });
  const [first] = await db('course_sections').insert({ course_id: course, title: 'First steps', position: 1, created_at: now, updated_at: now });
  const lecture = async (sectionId: number, title: string, position: number): Promise<number> => {
    const [id] = await db('lectures').insert({ section_id: sectionId, course_id: course, title, position, kind: 'video', duration_seconds: 60, created_at: now, updated_at: now });
    return Number(id);
  };
  const l3 = await lecture(Number(second), 'Lecture 3', 1);
  const l2 = await lecture(Number(first), 'Lecture 2', 2);
  const l1 = await lecture(Number(first), 'Lecture 1', 1);
  return { id: course, sectionIds: [Number(first), Number(second)], lectureIds: [l1, l2, l3] };
}

export async function recordProgress(db: Database, userId: number, course: TestCourse, lectureId: number, state: 'read' | 'completed', positionSeconds = 30): Promise<void> {
  const now = new Date();
  await db('lecture_progress').insert({ user_id: userId, lecture_id: lectureId, course_id: course.id, state, position_seconds: positionSeconds, completed_at: state === 'completed' ? now : null, created_at: now, updated_at: now });
}
