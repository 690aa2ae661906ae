import type { CourseResolvers } from '../../../../../generated/graphql/resolvers.js';
import { courseProgress } from '../../../../member/courses.js';

/** Course.detailProgress: computed from the same lecture set and states as Course.sections (no extra query). */
export const detailProgress: NonNullable<CourseResolvers['detailProgress']> = (course, _args, context) => courseProgress(context, course.id);
