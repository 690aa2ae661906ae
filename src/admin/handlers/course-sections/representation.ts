import type { components } from '../../../../generated/admin-api.js';
import type { SectionRecord } from '../../../courses/curriculum.js';

export type CourseSectionRepresentation = components['schemas']['CourseSection'];

export function sectionRepresentation(section: SectionRecord): CourseSectionRepresentation {
  return {
    id: section.id,
    courseId: section.courseId,
    title: section.title,
    position: section.position,
    lectureCount: section.lectureCount,
    durationSeconds: section.durationSeconds,
    createdAt: section.createdAt.toISOString(),
    updatedAt: section.updatedAt.toISOString(),
  };
}

/** `{baseUrl}/courses/{courseId}/sections/{id}`. */
export function sectionUrl(baseUrl: string, section: SectionRecord): string {
  return `${baseUrl}/courses/${section.courseId}/sections/${section.id}`;
}
