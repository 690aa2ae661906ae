import type { McpResource } from '../resource.js';
import { courseCatalogueResource } from './course-catalogue.js';
import { courseSyllabusResource } from './course-syllabus.js';
import { myCourseSyllabusView } from './my-course-syllabus-view.js';
import { myCourseSyllabusResource } from './my-course-syllabus.js';
import { myCoursesView } from './my-courses-view.js';
import { myCoursesResource } from './my-courses.js';
import { myScheduleResource } from './my-schedule.js';
import { schoolProfileResource } from './school-profile.js';

/** The resources and resource templates of /mcp, public ones first, in the order resources/list shows them. */
export const RESOURCES: readonly McpResource[] = [schoolProfileResource, courseCatalogueResource, courseSyllabusResource, myCoursesResource, myCourseSyllabusResource, myScheduleResource, myCoursesView, myCourseSyllabusView];
