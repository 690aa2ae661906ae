import type { CourseInput, EnrollmentInput } from '../document.js';
import { optionalTime, scopedKey, time, type ImportContext } from '../context.js';
import { moneyColumns } from '../../shared/money.js';
import type { BatchRow } from '../upsert-batch.js';
import type { Row } from '../upsert.js';

/** Courses with their lecturers, sections and lectures. Positions are the 0-based order in the document. */
export async function importCourses(ctx: ImportContext): Promise<void> {
  for (const course of ctx.document.courses ?? []) {
    const courseId = await ctx.save(
      'courses',
      [
        { site_id: ctx.siteId, external_id: course.externalId },
        { site_id: ctx.siteId, slug: course.slug },
      ],
      {
        slug: course.slug,
        title: course.title,
        description: course.description ?? null,
        cover_image_url: course.coverImageUrl ?? null,
        status: course.status,
        ...moneyColumns('price', course.price),
      },
    );
    ctx.courses.set(course.externalId, courseId);
    await importCurriculum(ctx, course, courseId);
  }
}

async function importCurriculum(ctx: ImportContext, course: CourseInput, courseId: number): Promise<void> {
  for (const [position, email] of (course.lecturers ?? []).entries()) {
    await ctx.link('course_lecturers', { course_id: courseId, lecturer_profile_id: ctx.lecturers.get(email) }, { position });
  }
  for (const [sectionPosition, section] of (course.sections ?? []).entries()) {
    const sectionId = await ctx.save('course_sections', { course_id: courseId, external_id: section.externalId }, { title: section.title, position: sectionPosition });
    for (const [position, lecture] of (section.lectures ?? []).entries()) {
      const lectureId = await ctx.save(
        'lectures',
        { course_id: courseId, external_id: lecture.externalId },
        {
          section_id: sectionId,
          title: lecture.title,
          position,
          kind: lecture.kind,
          duration_seconds: lecture.durationSeconds,
          locked: lecture.locked ?? false,
          unlock_at: optionalTime(lecture.unlockAt),
          is_preview: lecture.isPreview ?? false,
        },
      );
      ctx.lectures.set(scopedKey(course.externalId, lecture.externalId), lectureId);
    }
  }
}

/**
 * One chunk of enrollments (keyed by externalId, or by course and user) with their last-watched position and lecture
 * progress (keyed by user and lecture): a few statements per table for the whole chunk (upsert-batch.ts).
 */
export async function importEnrollments(ctx: ImportContext, enrollments: readonly EnrollmentInput[]): Promise<void> {
  const pairs = enrollments.map((enrollment) => ({ course_id: ctx.courses.get(enrollment.course), user_id: ctx.users.get(enrollment.user) }));
  const rows: BatchRow[] = enrollments.map((enrollment, index) => {
    const lastWatched = enrollment.lastWatched ?? null;
    return {
      keys: [{ site_id: ctx.siteId, external_id: enrollment.externalId }, { ...(pairs[index] as Row) }],
      values: {
        enrolled_at: time(enrollment.enrolledAt),
        expires_at: optionalTime(enrollment.expiresAt),
        has_lifetime_access: enrollment.hasLifetimeAccess,
        source: enrollment.source ?? 'import',
        last_watched_lecture_id: lastWatched ? ctx.lectures.get(scopedKey(enrollment.course, lastWatched.lecture)) : null,
        last_watched_position_seconds: lastWatched?.positionSeconds ?? null,
        last_watched_at: lastWatched ? time(lastWatched.at) : null,
      },
    };
  });
  await ctx.saveAll('enrollments', rows, { noneStored: ctx.siteCreated });
  const progress = enrollments.flatMap((enrollment, index) => progressRows(ctx, enrollment, pairs[index] ?? { course_id: 0, user_id: 0 }));
  await ctx.saveAll('lecture_progress', progress, { noneStored: ctx.siteCreated });
}

function progressRows(ctx: ImportContext, enrollment: EnrollmentInput, { course_id, user_id }: { course_id: number; user_id: number }) {
  return (enrollment.progress ?? []).map((progress) => ({
    keys: [{ user_id, lecture_id: ctx.lectures.get(scopedKey(enrollment.course, progress.lecture)) }],
    values: { course_id, state: progress.state, position_seconds: progress.positionSeconds ?? 0, completed_at: optionalTime(progress.completedAt) },
  }));
}
