import { z } from 'zod';
import type { CourseRecord, LastWatchedRecord } from '../../../member/courses.js';
import { encodeNodeId } from '../../../member/ids.js';
import { optionalDateTime } from '../../format.js';
import { dateTime } from '../../schemas.js';

/** Shapes shared by the member course tools (the same fields and ids as the member GraphQL API's Course). */

export const progressOutput = z
  .object({
    totalLecturesCount: z.number().int(),
    completedLecturesCount: z.number().int(),
    readLecturesCount: z.number().int().describe('Opened but not completed.'),
    unreadLecturesCount: z.number().int(),
    completionRate: z.number().min(0).max(1).describe('completed / total, a fraction from 0 to 1 (not a percentage).'),
    totalDurationSeconds: z.number().int(),
    completedDurationSeconds: z.number().int(),
  })
  .describe("The member's progress over every lecture of the course, locked ones included.");

export const lastWatchedOutput = z
  .object({
    lectureId: z.string().describe('Id of the lecture last watched (a lecture id of get_my_course_syllabus).'),
    positionSeconds: z.number().int().describe('Playback position in that lecture, seconds from its start.'),
  })
  .nullable()
  .describe('Where the member stopped watching; null before the first watch.');

export const enrolledCourseFields = {
  id: z.string().describe('Opaque course id (the same as the member GraphQL API and search_courses).'),
  slug: z.string(),
  title: z.string(),
  hasLifetimeAccess: z.boolean(),
  expireDate: dateTime.nullable().describe('When access ends; null with lifetime access. A past value means access has ended.'),
  accessEnded: z.boolean().describe('True when expireDate has passed.'),
};

export function enrolledCourseOutput(course: CourseRecord, now: Date) {
  return {
    id: encodeNodeId('Course', course.id),
    slug: course.slug,
    title: course.title,
    hasLifetimeAccess: course.hasLifetimeAccess,
    expireDate: optionalDateTime(course.expireDate),
    accessEnded: course.expireDate !== null && course.expireDate.getTime() <= now.getTime(),
  };
}

export function lastWatchedOutputOf(resume: LastWatchedRecord | null): z.input<typeof lastWatchedOutput> {
  return resume === null ? null : { lectureId: encodeNodeId('Lecture', resume.lectureId), positionSeconds: resume.positionSeconds };
}
