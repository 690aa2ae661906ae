import type { CourseRefResolvers, CourseResolvers, LectureResolvers, SectionResolvers, ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { encodeNodeId } from '../../../../member/ids.js';
import { detailProgress } from './detail-progress.js';
import { courseConnectionResolvers, enrolledCourses } from './enrolled-courses.js';
import { lastWatchedLecture } from './last-watched-lecture.js';
import { sections } from './sections.js';

export const courseViewerResolvers: ViewerResolvers = { enrolledCourses };

export { courseConnectionResolvers };

export const courseResolvers: CourseResolvers = {
  id: (course) => encodeNodeId('Course', course.id),
  // expireDate and Lecture.unlockAt are Dates on the records: the DateTime scalar spells them, no resolver needed.
  lastWatchedLecture,
  detailProgress,
  sections,
};

export const sectionResolvers: SectionResolvers = {
  id: (section) => encodeNodeId('Section', section.id),
};

export const lectureResolvers: LectureResolvers = {
  id: (lecture) => encodeNodeId('Lecture', lecture.id),
};

export const courseRefResolvers: CourseRefResolvers = {
  id: (course) => encodeNodeId('Course', course.id),
};
