import type { CourseResolvers } from '../../../../../generated/graphql/resolvers.js';
import { lastWatched } from '../../../../member/courses.js';
import { encodeNodeId } from '../../../../member/ids.js';

/** Course.lastWatchedLecture: the resume point kept on the enrollment; `lectureId` is the Lecture's global id. */
export const lastWatchedLecture: NonNullable<CourseResolvers['lastWatchedLecture']> = (course) => {
  const resume = lastWatched(course);
  return resume === null ? null : { lectureId: encodeNodeId('Lecture', resume.lectureId), positionSeconds: resume.positionSeconds };
};
