import type { CourseRefResolvers, CourseResolvers, LectureResolvers, SectionResolvers, ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { encodeNodeId } from '../../../../member/ids.js';
import { optionalDateTime } from '../../time.js';
import { detailProgress } from './detail-progress.js';
import { enrolledCourses } from './enrolled-courses.js';
import { lastWatchedLecture } from './last-watched-lecture.js';
import { sections } from './sections.js';

export const courseViewerResolvers: ViewerResolvers = { enrolledCourses };

export const courseResolvers: CourseResolvers = {
  id: (course) => encodeNodeId('Course', course.id),
  expireDate: (course) => optionalDateTime(course.expireDate),
  lastWatchedLecture,
  detailProgress,
  sections,
};

export const sectionResolvers: SectionResolvers = {
  id: (section) => encodeNodeId('Section', section.id),
};

export const lectureResolvers: LectureResolvers = {
  id: (lecture) => encodeNodeId('Lecture', lecture.id),
  unlockAt: (lecture) => optionalDateTime(lecture.unlockAt),
  duration: (lecture) => lecture.durationSeconds,
};

export const courseRefResolvers: CourseRefResolvers = {
  id: (course) => encodeNodeId('Course', course.id),
};
