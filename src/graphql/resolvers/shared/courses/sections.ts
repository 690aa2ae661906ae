import type { CourseResolvers } from '../../../../../generated/graphql/resolvers.js';
import { syllabusOf, type SyllabusRecord } from '../../../../member/courses.js';

/** Course.sections: the syllabus with the viewer's lecture states; one query for every course of the request. */
export const sections: NonNullable<CourseResolvers['sections']> = (course, _args, context) => syllabusOf(context, course).then(sectionsOf);

const sectionsOf = (syllabus: SyllabusRecord) => syllabus.sections;
