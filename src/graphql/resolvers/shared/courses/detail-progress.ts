import type { CourseResolvers } from '../../../../../generated/graphql/resolvers.js';
import { courseProgress } from '../../../../member/courses.js';

/** Course.detailProgress: added up with Course.sections from the same lecture rows (no extra query). */
export const detailProgress: NonNullable<CourseResolvers['detailProgress']> = (course, _args, context) => courseProgress(context, course);
