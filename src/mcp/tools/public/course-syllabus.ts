import { z } from 'zod';
import { publicSyllabus } from '../../../catalog/courses.js';
import { courseReference, parseCourseReference } from '../../schemas.js';
import { defineTool, READ_ONLY, ToolError } from '../../tool.js';
import { publicCourseOutput, toPublicCourseOutput } from './course-output.js';

export const getCourseSyllabus = defineTool({
  name: 'get_course_syllabus',
  title: 'Course syllabus',
  description:
    "The public syllabus of one published course: its sections in order, each with its lectures' titles, kinds and durations, and which lectures are free previews. Shows what the course covers before anyone buys it; it holds no lecture content and no progress. Public: no sign-in needed. For a signed-in member's own progress through a course they are enrolled in, use get_my_course_syllabus.",
  scopes: [],
  input: z.object({ course: courseReference }),
  output: z.object({
    course: publicCourseOutput,
    sections: z.array(
      z.object({
        title: z.string(),
        position: z.number().int().describe('1-based, in course order.'),
        durationSeconds: z.number().int().describe('Total length of the section, seconds.'),
        lectures: z.array(
          z.object({
            title: z.string(),
            position: z.number().int().describe('1-based within the section.'),
            kind: z.string().describe('video, text, audio, quiz or file.'),
            durationSeconds: z.number().int().describe('Length in seconds; 0 for lectures without media.'),
            isPreview: z.boolean().describe('Free preview, open to anyone.'),
          }),
        ),
      }),
    ),
  }),
  annotations: READ_ONLY,
  async run(input, context) {
    const syllabus = await publicSyllabus(context.catalog(), parseCourseReference(input.course));
    if (!syllabus) throw new ToolError('not_found', `no published course "${input.course}" at this school; search_courses lists them`);
    return { course: toPublicCourseOutput(syllabus.course), sections: syllabus.sections };
  },
});
