import type { PromptMessage } from '@modelcontextprotocol/server';
import { decodeNodeId } from '../../member/ids.js';
import { coursesOfService } from '../../member/services.js';
import { definePrompt, PromptArgumentError } from '../prompt.js';
import { myCourseSyllabusResource } from '../resources/my-course-syllabus.js';
import { myCoursesResource } from '../resources/my-courses.js';
import type { ToolContext } from '../session.js';
import { argumentValue } from './arguments.js';
import { startingWith } from './completion.js';
import { embedResource, userText } from './embed.js';
import { atSchool } from './today.js';
import { upcomingMeetings, type ListedMeeting } from './upcoming-meetings.js';

/** The meeting the prompt is about: the one named, or the member's next one. */
async function meetingToPrepare(context: ToolContext, id: string | undefined): Promise<ListedMeeting> {
  const meetings = await upcomingMeetings(context, (meeting) => id === undefined || meeting.id === id);
  const meeting = id === undefined ? meetings[0] : meetings.find((candidate) => candidate.id === id);
  if (meeting !== undefined) return meeting;
  if (meetings.length === 0) throw new PromptArgumentError('meeting: the member has no upcoming consulting meeting at this school; list_consulting_services shows what can be booked');
  throw new PromptArgumentError(`meeting: ${JSON.stringify(id?.slice(0, 80))} is not one of the member's upcoming meetings; list_my_meetings lists them with their ids`);
}

/**
 * What to review for the meeting: the member's progress in the courses its consulting service goes with (those they
 * hold a live enrollment in), or all their courses when it covers none of them (a study-group meeting, another topic).
 */
async function courseMaterial(context: ToolContext, meeting: ListedMeeting): Promise<{ messages: PromptMessage[]; uris: string[]; fromService: boolean }> {
  const serviceId = meeting.service === null ? null : decodeNodeId('ConsultingService', meeting.service.id);
  const covered = serviceId === null ? [] : await coursesOfService(context.member(), serviceId);
  if (covered.length === 0) return { messages: await embedResource(context, myCoursesResource), uris: [myCoursesResource.uri(context.site)], fromService: false };
  const syllabi = await Promise.all(covered.map((course) => embedResource(context, myCourseSyllabusResource, { params: { slug: course.slug } })));
  return { messages: syllabi.flat(), uris: covered.map((course) => myCourseSyllabusResource.uri(context.site, { slug: course.slug })), fromService: true };
}

export const prepareForConsultingMeeting = definePrompt({
  name: 'prepare_for_consulting_meeting',
  title: 'Prepare for my consulting meeting',
  description:
    "Prepare for one of the member's upcoming consulting meetings (by default the next one): questions worth bringing and what to review beforehand, from the member's progress in the courses the consulting service goes with. Attaches the meeting and that progress. Needs a member token with account:read.",
  scopes: ['account:read'],
  needs: ['consultingMeetings'],
  arguments: [
    {
      name: 'meeting',
      title: 'Meeting',
      description: "The id of one of the member's upcoming meetings, as list_my_meetings gives it. Optional: the next upcoming meeting by default.",
      required: false,
      complete: async (context, prefix) =>
        startingWith(
          (await upcomingMeetings(context)).map((meeting) => meeting.id),
          prefix,
        ),
    },
  ],
  async get(context, args) {
    const meeting = await meetingToPrepare(context, argumentValue(args, 'meeting'));
    const material = await courseMaterial(context, meeting);
    const title = meeting.service?.title ?? meeting.studyGroup?.name ?? 'consulting meeting';
    const steps = [
      'Suggest three to five specific questions to bring, based on where I am: lectures I am in the middle of, ones I completed recently, and what comes next.',
      'List what to review before the meeting, lecture by lecture with how long each takes, and fit it into the time left before the meeting starts.',
      ...(meeting.state === 'available' ? ['Staff have not confirmed this meeting yet (state "available"): remind me to check before I go.'] : []),
      'The room link (roomUrl) appears only while the meeting is live; do not make one up.',
      'Use only the attached data; if something you need is missing, say so instead of guessing.',
    ];
    const instruction = [
      `Help me prepare for my meeting "${title}" at ${context.site.name}, starting ${atSchool(context, new Date(meeting.startAt))}. It is now ${atSchool(context)}; times in the attached data are UTC.`,
      `Attached: the meeting, as list_my_meetings gives it; ${material.fromService ? 'my progress in the courses this consulting service goes with' : 'my courses with my progress in each'} (${material.uris.join(', ')}).`,
      steps.map((step) => `- ${step}`).join('\n'),
    ].join('\n\n');
    return {
      description: `Preparation for ${title}`,
      messages: [userText(instruction), userText(JSON.stringify(meeting)), ...material.messages],
    };
  },
});
