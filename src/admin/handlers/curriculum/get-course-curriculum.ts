import { getCurriculum } from '../../../courses/curriculum.js';
import type { AdminHandler } from '../../api/types.js';
import { lectureRepresentation } from '../lectures/representation.js';

/** GET /courses/{courseId}/curriculum (curriculum:read): the whole syllabus tree in one answer. */
export const getCourseCurriculum: AdminHandler<'getCourseCurriculum'> = async ({ db, site, path }) => {
  const curriculum = await getCurriculum(db, site.id, path.courseId);
  return {
    status: 200,
    body: {
      courseId: curriculum.courseId,
      sectionCount: curriculum.sectionCount,
      lectureCount: curriculum.lectureCount,
      totalDurationSeconds: curriculum.totalDurationSeconds,
      sections: curriculum.sections.map((section) => ({
        id: section.id,
        title: section.title,
        position: section.position,
        durationSeconds: section.durationSeconds,
        lectures: section.lectures.map(lectureRepresentation),
      })),
    },
  };
};
