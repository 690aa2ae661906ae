import type { components } from '../../../../generated/admin-api.js';
import type { Enrollment, ProgressSummary } from '../../../people/enrollments.js';

export type EnrollmentRepresentation = components['schemas']['Enrollment'];
export type EnrollmentWithProgress = components['schemas']['EnrollmentWithProgress'];

export function enrollmentRepresentation(enrollment: Enrollment): EnrollmentRepresentation {
  const { lastWatched } = enrollment;
  return {
    id: enrollment.id,
    userId: enrollment.userId,
    courseId: enrollment.courseId,
    enrolledAt: enrollment.enrolledAt.toISOString(),
    expiresAt: enrollment.expiresAt?.toISOString() ?? null,
    hasLifetimeAccess: enrollment.hasLifetimeAccess,
    access: enrollment.access,
    source: enrollment.source,
    lastWatched: lastWatched === null ? null : { lectureId: lastWatched.lectureId, positionSeconds: lastWatched.positionSeconds, watchedAt: lastWatched.watchedAt?.toISOString() ?? null },
    createdAt: enrollment.createdAt.toISOString(),
    updatedAt: enrollment.updatedAt.toISOString(),
  };
}

export function withProgress(enrollment: Enrollment, progress: ProgressSummary): EnrollmentWithProgress {
  const { createdAt, updatedAt, ...rest } = enrollmentRepresentation(enrollment);
  return { ...rest, progress, createdAt, updatedAt };
}
