import { listLectures as listCourseLectures, sectionBelongsToCourse } from '../../../courses/curriculum.js';
import { InvalidRequestProblem } from '../../api/problems.js';
import type { AdminHandler } from '../../api/types.js';
import { lectureRepresentation } from './representation.js';

/** GET /courses/{courseId}/lectures (curriculum:read): one page of the course's lectures, in syllabus order by default. */
export const listLectures: AdminHandler<'listLectures'> = async ({ db, site, path, query }) => {
  // Path values arrive as the strings of the URL (validated, not converted); ids are compared as numbers below.
  const courseId = path.courseId;
  const sectionId = query.sectionId === undefined ? undefined : Number(query.sectionId);
  const page = await listCourseLectures(db, site.id, courseId, { sectionId }, query);
  // Checked after the course (404 first): a section of another course is a bad filter, not an empty list.
  if (sectionId !== undefined && !(await sectionBelongsToCourse(db, courseId, sectionId))) {
    throw new InvalidRequestProblem(`Course ${courseId} has no section ${sectionId}.`, [{ parameter: 'sectionId', message: 'is not a section of this course' }]);
  }
  return { status: 200, body: { data: page.lectures.map(lectureRepresentation), nextCursor: page.nextCursor } };
};
