import { z } from 'zod';
import { enrolledCourse, lastWatched, type CourseRecord } from '../../../member/courses.js';
import type { MemberContext } from '../../../member/context.js';
import { encodeNodeId } from '../../../member/ids.js';
import { lectureSyllabus, type SyllabusLecture, type SyllabusSection } from '../../../member/lecture-syllabus.js';
import { optionalDateTime } from '../../format.js';
import { myCourseSyllabusView } from '../../resources/my-course-syllabus-view.js';
import { courseReference, dateTime, parseCourseReference } from '../../schemas.js';
import { defineTool, READ_ONLY, ToolError } from '../../tool.js';
import { viewLink } from '../../views/view-resource.js';
import { enrolledCourseFields, enrolledCourseOutput, progressOutput } from './course-output.js';

/** One of the member's enrolled courses by id or slug (a course of this site in any status); null when not enrolled. */
async function findEnrolledCourse(member: MemberContext, reference: string): Promise<CourseRecord | null> {
  const parsed = parseCourseReference(reference);
  let courseId: number | null = 'id' in parsed ? parsed.id : null;
  if ('slug' in parsed) {
    const row = (await member.db('courses').where({ site_id: member.site.id, slug: parsed.slug }).first('id')) as { id: number | string } | undefined;
    courseId = row ? Number(row.id) : null;
  }
  return courseId === null ? null : enrolledCourse(member, courseId);
}

const lectureState = z.enum(['unread', 'read', 'completed']);

export const getMyCourseSyllabus = defineTool({
  name: 'get_my_course_syllabus',
  title: 'My progress in a course',
  description:
    "One course the signed-in member is enrolled in, lecture by lecture: every section with its lectures, each with the member's state (unread, read or completed), whether it is still locked and when it unlocks, and its duration; plus overall progress, where the member stopped watching (resumeAt: lecture and position) and the next lecture to take (nextUp: the first unlocked lecture not yet completed). Use it to say where someone left off or what is next. Needs a member token with account:read.",
  scopes: ['account:read'],
  input: z.object({ course: courseReference.describe('The course: its slug or its id from list_my_courses.') }),
  output: z.object({
    course: z.object(enrolledCourseFields),
    progress: progressOutput,
    resumeAt: z
      .object({
        lectureId: z.string(),
        lectureTitle: z.string().nullable().describe('Null if that lecture is no longer in the syllabus.'),
        sectionTitle: z.string().nullable(),
        positionSeconds: z.number().int().describe('Playback position, seconds from the start of the lecture.'),
        watchedAt: dateTime.nullable(),
      })
      .nullable()
      .describe('Where the member stopped watching; null before the first watch.'),
    nextUp: z
      .object({ lectureId: z.string(), lectureTitle: z.string(), sectionTitle: z.string() })
      .nullable()
      .describe('The first lecture in syllabus order that is unlocked and not completed; null when there is none.'),
    sections: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        position: z.number().int().describe('1-based, in course order.'),
        lectures: z.array(
          z.object({
            id: z.string(),
            title: z.string(),
            position: z.number().int().describe('1-based within the section.'),
            kind: z.string().describe('video, text, audio, quiz or file.'),
            state: lectureState.describe("The member's progress on the lecture."),
            isLocked: z.boolean().describe('True while the member cannot open it yet.'),
            unlockAt: dateTime.nullable().describe('When it unlocks; null when no unlock time is scheduled.'),
            durationSeconds: z.number().int().describe('Length in seconds; 0 for lectures without media.'),
          }),
        ),
      }),
    ),
  }),
  annotations: READ_ONLY,
  // Hosts that show MCP Apps draw the result with this view; other clients get the same structured content.
  _meta: viewLink(myCourseSyllabusView),
  async run(input, context) {
    const member = context.member();
    const course = await findEnrolledCourse(member, input.course);
    if (!course) throw new ToolError('not_found', `the member is not enrolled in a course "${input.course}" at this school; list_my_courses lists their courses`);
    const { sections, progress } = await lectureSyllabus(member, course);
    const resume = lastWatched(course);
    // The resumed lecture and the next one to take, first in syllabus order, found in one pass.
    let resumed: { lecture: SyllabusLecture; section: SyllabusSection } | undefined;
    let next: { lecture: SyllabusLecture; section: SyllabusSection } | undefined;
    for (const section of sections) {
      for (const lecture of section.lectures) {
        if (resumed === undefined && resume !== null && lecture.id === resume.lectureId) resumed = { lecture, section };
        if (next === undefined && !lecture.isLocked && lecture.state !== 'completed') next = { lecture, section };
      }
    }
    return {
      course: enrolledCourseOutput(course, member.now),
      progress,
      resumeAt:
        resume === null
          ? null
          : {
              lectureId: encodeNodeId('Lecture', resume.lectureId),
              lectureTitle: resumed?.lecture.title ?? null,
              sectionTitle: resumed?.section.title ?? null,
              positionSeconds: resume.positionSeconds,
              watchedAt: optionalDateTime(resume.watchedAt),
            },
      nextUp: next ? { lectureId: encodeNodeId('Lecture', next.lecture.id), lectureTitle: next.lecture.title, sectionTitle: next.section.title } : null,
      sections: sections.map((section) => ({
        id: encodeNodeId('Section', section.id),
        title: section.title,
        position: section.position,
        lectures: section.lectures.map((lecture) => ({
          id: encodeNodeId('Lecture', lecture.id),
          title: lecture.title,
          position: lecture.position,
          kind: lecture.kind,
          state: lecture.state,
          isLocked: lecture.isLocked,
          unlockAt: optionalDateTime(lecture.unlockAt),
          durationSeconds: lecture.durationSeconds,
        })),
      })),
    };
  },
});
