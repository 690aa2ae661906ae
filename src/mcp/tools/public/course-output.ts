import { z } from 'zod';
import type { PublicCourse } from '../../../catalog/courses.js';
import { encodeNodeId } from '../../../member/ids.js';
import { price } from '../../schemas.js';

/** A course of the public catalogue, as the public tools return it. */
export const publicCourseOutput = z.object({
  id: z.string().describe('Opaque course id (the same id the member tools and the member GraphQL API use).'),
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  coverImageUrl: z.string().nullable(),
  price,
  lecturers: z.array(z.string()).describe('Lecturer names.'),
  sectionCount: z.number().int(),
  lectureCount: z.number().int(),
  previewLectureCount: z.number().int().describe('Lectures anyone may watch as a free preview.'),
  totalDurationSeconds: z.number().int().describe('Total length of all lectures, seconds.'),
  url: z.string().describe("The course's page on the school site."),
});

export function toPublicCourseOutput(course: PublicCourse): z.input<typeof publicCourseOutput> {
  return Object.assign({}, course, { id: encodeNodeId('Course', course.id) });
}
