import type { McpPrompt } from '../prompt.js';
import { catchUpOnCourse } from './catch-up-on-course.js';
import { findACourse } from './find-a-course.js';
import { prepareForConsultingMeeting } from './prepare-for-consulting-meeting.js';
import { weeklyStudyPlan } from './weekly-study-plan.js';

/** The prompts of /mcp, in the order prompts/list shows them: the member's own first, then the public one. */
export const PROMPTS: readonly McpPrompt[] = [weeklyStudyPlan, catchUpOnCourse, prepareForConsultingMeeting, findACourse];
