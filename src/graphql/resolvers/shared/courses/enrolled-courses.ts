import type { CourseConnectionResolvers, ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { countEnrolledCourses, enrolledCoursesPage } from '../../../../member/courses.js';
import { toConnection } from '../../connection.js';

/** Viewer.enrolledCourses: the viewer's courses, newest enrollment first (one query for the page). */
export const enrolledCourses: NonNullable<ViewerResolvers['enrolledCourses']> = async (_viewer, args, context) => toConnection(await enrolledCoursesPage(context, args));

/** CourseConnection.totalCount: known from a page that holds the whole list, else counted, and only when selected. */
export const courseConnectionResolvers: CourseConnectionResolvers = {
  totalCount: (connection, _args, context) => connection.totalCount ?? countEnrolledCourses(context),
};
