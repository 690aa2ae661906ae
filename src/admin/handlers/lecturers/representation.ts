import type { components } from '../../../../generated/admin-api.js';
import type { LecturerRecord } from '../../../courses/lecturers.js';

export type LecturerRepresentation = components['schemas']['Lecturer'];

export function lecturerRepresentation(lecturer: LecturerRecord): LecturerRepresentation {
  return {
    id: lecturer.id,
    userId: lecturer.userId,
    displayName: lecturer.displayName,
    bio: lecturer.bio,
    avatarUrl: lecturer.avatarUrl,
    courses: lecturer.courses.map(({ id, title }) => ({ id, title })),
    createdAt: lecturer.createdAt.toISOString(),
    updatedAt: lecturer.updatedAt.toISOString(),
  };
}

/** `{baseUrl}/lecturers/{id}`. */
export function lecturerUrl(baseUrl: string, lecturerId: number): string {
  return `${baseUrl}/lecturers/${lecturerId}`;
}
