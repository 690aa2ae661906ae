import type { components } from '../../../../generated/admin-api.js';
import type { Course } from '../../../courses/courses.js';

export type CourseRepresentation = components['schemas']['Course'];

export function courseRepresentation(course: Course): CourseRepresentation {
  return {
    id: course.id,
    slug: course.slug,
    title: course.title,
    description: course.description,
    coverImageUrl: course.coverImageUrl,
    status: course.status,
    price: course.price,
    lecturers: course.lecturers.map(({ id, displayName }) => ({ id, displayName })),
    sectionCount: course.sectionCount,
    lectureCount: course.lectureCount,
    totalDurationSeconds: course.totalDurationSeconds,
    enrollmentCount: course.enrollmentCount,
    createdAt: course.createdAt.toISOString(),
    updatedAt: course.updatedAt.toISOString(),
  };
}

/** `{baseUrl}/courses/{id}`. */
export function courseUrl(baseUrl: string, courseId: number): string {
  return `${baseUrl}/courses/${courseId}`;
}
