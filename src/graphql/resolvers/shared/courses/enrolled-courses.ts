import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { listEnrolledCourses } from '../../../../member/courses.js';
import { toConnection } from '../../connection.js';

/** Viewer.enrolledCourses: the viewer's courses, newest enrollment first. */
export const enrolledCourses: NonNullable<ViewerResolvers['enrolledCourses']> = async (_viewer, args, context) => toConnection(await listEnrolledCourses(context, args));
