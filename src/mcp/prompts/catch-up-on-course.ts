import { definePrompt } from '../prompt.js';
import { myCourseSyllabusResource } from '../resources/my-course-syllabus.js';
import { requiredArgumentValue } from './arguments.js';
import { completeEnrolledCourse } from './completion.js';
import { embedResource, userText } from './embed.js';
import { atSchool } from './today.js';

export const catchUpOnCourse = definePrompt({
  name: 'catch_up_on_course',
  title: 'Catch up on a course',
  description:
    "Make a plan to catch up on one of the member's courses from where they left off: a short recap of what they completed, then the remaining lectures in order, in sessions sized by the lectures' lengths. Attaches the course's lectures with the member's progress in each. Needs a member token with account:read.",
  scopes: ['account:read'],
  arguments: [
    {
      name: 'course',
      title: 'Course',
      description: "The slug of one of the member's courses, e.g. foundations-of-typography.",
      required: true,
      complete: (context, prefix) => completeEnrolledCourse(context, prefix),
    },
  ],
  async get(context, args) {
    const course = requiredArgumentValue(args, 'course');
    const syllabus = await embedResource(context, myCourseSyllabusResource, { params: { slug: course }, argument: 'course' });
    const steps = [
      'Start from where I stopped watching (resumeAt: the lecture and the position in it) and the next lecture to take (nextUp).',
      'Recap in a few lines what I have completed so far, section by section, so I remember where I am.',
      'List the lectures I still have to take, in syllabus order, grouped into sessions of about an hour using their lengths (durationSeconds).',
      'Point out lectures that are still locked (isLocked) and when they unlock (unlockAt), and do not plan them before then.',
      'If my access ends (expireDate) before I could finish at that pace, say so and suggest what to take first.',
      'If I have completed every lecture, say so and suggest what is worth revisiting.',
      'Use only the attached data; if something you need is missing, say so instead of guessing.',
    ];
    const instruction = [
      `Help me catch up on ${course} at ${context.site.name}. It is ${atSchool(context)}; times in the attached data are UTC.`,
      `Attached: the course's lectures with my progress in each one (${myCourseSyllabusResource.uri(context.site, { slug: course })}).`,
      steps.map((step) => `- ${step}`).join('\n'),
    ].join('\n\n');
    return { description: `A plan to catch up on ${course}`, messages: [userText(instruction), ...syllabus] };
  },
});
