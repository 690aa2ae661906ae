import type { McpTool } from '../tool.js';
import { markAllNotificationsRead } from './member/mark-all-notifications-read.js';
import { markNotificationRead } from './member/mark-notification-read.js';
import { getMyCourseSyllabus } from './member/my-course-syllabus.js';
import { listMyCourses } from './member/my-courses.js';
import { listMyMeetings } from './member/my-meetings.js';
import { listMyNotifications } from './member/my-notifications.js';
import { listMyPayments } from './member/my-payments.js';
import { listConsultingServices } from './public/consulting-services.js';
import { getCourseSyllabus } from './public/course-syllabus.js';
import { getSchoolProfile } from './public/school-profile.js';
import { searchCourses } from './public/search-courses.js';
import { listUpcomingEvents } from './public/upcoming-events.js';

/** Public tools: every caller, anonymous included, gets them (spec, Authentication 9). */
export const PUBLIC_TOOLS: readonly McpTool[] = [getSchoolProfile, searchCourses, getCourseSyllabus, listUpcomingEvents, listConsultingServices];

/** User-bound tools: a token bound to a member with the tool's scope (spec, Authentication 8), over the member domain layer. */
export const MEMBER_TOOLS: readonly McpTool[] = [listMyCourses, getMyCourseSyllabus, listMyMeetings, listMyPayments, listMyNotifications, markNotificationRead, markAllNotificationsRead];

export const ALL_TOOLS: readonly McpTool[] = [...PUBLIC_TOOLS, ...MEMBER_TOOLS];
