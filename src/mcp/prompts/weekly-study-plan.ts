import { definePrompt, PromptArgumentError } from '../prompt.js';
import { myCourseSyllabusResource } from '../resources/my-course-syllabus.js';
import { myCoursesResource } from '../resources/my-courses.js';
import { myScheduleResource } from '../resources/my-schedule.js';
import { argumentValue } from './arguments.js';
import { completeEnrolledCourse, startingWith } from './completion.js';
import { embedResource, isOffered, userText } from './embed.js';
import { atSchool } from './today.js';

/** What completion offers for hours_per_week: common weekly study budgets. */
const HOURS_SUGGESTIONS = ['2', '3', '5', '8', '10', '15', '20'];
const MAX_HOURS_PER_WEEK = 80;

/** hours_per_week as a number of hours; a value that is not one is the caller's mistake (-32602). */
function hoursFrom(value: string): number {
  const hours = /^\d{1,3}(\.\d{1,2})?$/.test(value) ? Number(value) : Number.NaN;
  if (!(hours >= 1 && hours <= MAX_HOURS_PER_WEEK)) throw new PromptArgumentError(`hours_per_week must be a number of hours from 1 to ${MAX_HOURS_PER_WEEK}, such as 5 or 7.5; got ${JSON.stringify(value.slice(0, 40))}`);
  return hours;
}

export const weeklyStudyPlan = definePrompt({
  name: 'weekly_study_plan',
  title: 'Plan my study week',
  description:
    "Plan the coming week of study from the member's own courses and progress at this school, fitted around what is already on their schedule. Attaches the member's courses with progress and their upcoming schedule (and, with focus_course, that course's lectures with their progress). Needs a member token with account:read.",
  scopes: ['account:read'],
  arguments: [
    {
      name: 'hours_per_week',
      title: 'Hours this week',
      description: 'How many hours the member can study this week, e.g. 5 or 7.5. Optional: without it the plan suggests a realistic amount.',
      required: false,
      complete: async (_context, prefix) => startingWith(HOURS_SUGGESTIONS, prefix),
    },
    {
      name: 'focus_course',
      title: 'Course to focus on',
      description: "The slug of one of the member's courses to give most of the week to, e.g. foundations-of-typography. Optional.",
      required: false,
      complete: (context, prefix) => completeEnrolledCourse(context, prefix),
    },
  ],
  async get(context, args) {
    const hoursText = argumentValue(args, 'hours_per_week');
    const hours = hoursText === undefined ? undefined : hoursFrom(hoursText);
    const focus = argumentValue(args, 'focus_course');
    const withSchedule = isOffered(context, myScheduleResource);
    const [courses, schedule, focusSyllabus] = await Promise.all([
      embedResource(context, myCoursesResource),
      withSchedule ? embedResource(context, myScheduleResource) : Promise.resolve([]),
      focus === undefined ? Promise.resolve([]) : embedResource(context, myCourseSyllabusResource, { params: { slug: focus }, argument: 'focus_course' }),
    ]);
    const attached = [
      `my courses at the school with my progress in each (${myCoursesResource.uri(context.site)})`,
      ...(withSchedule ? [`my schedule of what I have coming up (${myScheduleResource.uri(context.site)})`] : []),
      ...(focus === undefined ? [] : [`the lectures of ${focus} with my progress in each one (${myCourseSyllabusResource.uri(context.site, { slug: focus })})`]),
    ];
    const steps = [
      hours === undefined
        ? 'I have not said how many hours I have: suggest a realistic amount from my pace so far, and say what you assumed.'
        : `I have about ${hours} ${hours === 1 ? 'hour' : 'hours'} to study this week; do not plan more than that.`,
      'Spread the time over the next seven days in sessions of 30 to 90 minutes; for each session give the day, the time and what to do in which course.',
      ...(withSchedule ? ['Keep every session clear of what is on my schedule, and leave a short gap before each meeting or event.'] : []),
      'Leave out courses whose access has ended (accessEnded: true), and put a course whose access ends soon (expireDate) ahead of courses I keep for life.',
      focus === undefined
        ? 'Favour courses I have started and not finished (lastWatchedLecture, completionRate) over ones I have not begun.'
        : `Give most of the time to ${focus}: start where I stopped watching (resumeAt), go on with the next lecture to take (nextUp) in syllabus order, and do not plan lectures that are still locked (isLocked) before they unlock (unlockAt).`,
      'Use only the attached data; if something you need is missing, say so instead of guessing.',
    ];
    const instruction = [
      `Plan my study week at ${context.site.name}. It is ${atSchool(context)}; times in the attached data are UTC, so give the plan in ${context.site.timezone}.`,
      `Attached: ${attached.join('; ')}.`,
      steps.map((step) => `- ${step}`).join('\n'),
      'End with one line on what I will have completed by the end of the week if I follow the plan.',
    ].join('\n\n');
    return {
      description: focus === undefined ? 'A study plan for the coming week' : `A study plan for the coming week, focused on ${focus}`,
      messages: [userText(instruction), ...courses, ...schedule, ...focusSyllabus],
    };
  },
});
