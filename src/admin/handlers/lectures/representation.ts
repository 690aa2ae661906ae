import type { components } from '../../../../generated/admin-api.js';
import type { LectureRecord } from '../../../courses/curriculum.js';

export type LectureRepresentation = components['schemas']['Lecture'];

export function lectureRepresentation(lecture: LectureRecord): LectureRepresentation {
  return {
    id: lecture.id,
    courseId: lecture.courseId,
    sectionId: lecture.sectionId,
    title: lecture.title,
    position: lecture.position,
    kind: lecture.kind,
    durationSeconds: lecture.durationSeconds,
    locked: lecture.locked,
    unlockAt: lecture.unlockAt?.toISOString() ?? null,
    isPreview: lecture.isPreview,
    createdAt: lecture.createdAt.toISOString(),
    updatedAt: lecture.updatedAt.toISOString(),
  };
}

/** `{baseUrl}/courses/{courseId}/lectures/{id}`. */
export function lectureUrl(baseUrl: string, lecture: LectureRecord): string {
  return `${baseUrl}/courses/${lecture.courseId}/lectures/${lecture.id}`;
}
