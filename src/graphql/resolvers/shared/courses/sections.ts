import type { CourseResolvers } from '../../../../../generated/graphql/resolvers.js';
import { syllabusOf } from '../../../../member/courses.js';

/** Course.sections: the syllabus with the viewer's lecture states; one query for every course of the request. */
export const sections: NonNullable<CourseResolvers['sections']> = async (course, _args, context) => (await syllabusOf(context, course)).sections;
