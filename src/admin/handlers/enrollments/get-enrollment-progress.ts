import { lectureProgress, requireEnrollment } from '../../../people/enrollments.js';
import type { AdminHandler } from '../../api/types.js';

/** GET /enrollments/{enrollmentId}/progress (students:read): every lecture in curriculum order with the member's state. */
export const getEnrollmentProgress: AdminHandler<'getEnrollmentProgress'> = async ({ db, site, path }) => {
  const enrollment = await requireEnrollment(db, site.id, path.enrollmentId);
  const { summary, lectures } = await lectureProgress(db, site, enrollment);
  return {
    status: 200,
    body: {
      enrollmentId: enrollment.id,
      userId: enrollment.userId,
      courseId: enrollment.courseId,
      summary,
      lectures: lectures.map((lecture) => ({ ...lecture, completedAt: lecture.completedAt?.toISOString() ?? null })),
    },
  };
};
