import type { Resolvers } from '../../../../generated/graphql/resolvers.js';
import { consultingServiceResolvers, consultingSlotResolvers, consultingViewerResolvers, serviceMeetingResolvers } from './consulting/index.js';
import { courseConnectionResolvers, courseRefResolvers, courseResolvers, courseViewerResolvers, lectureResolvers, sectionResolvers } from './courses/index.js';
import { eventRegistrationResolvers, eventResolvers, eventViewerResolvers } from './events/index.js';
import { digitalProductResolvers, productViewerResolvers } from './products/index.js';
import { queryResolvers, viewerIdentityResolvers, viewerSchoolResolvers } from './viewer/index.js';

/**
 * Resolvers of the shared schema (schema/*.graphql): variant B's whole API and variant A's shared part. Thin: each
 * calls the domain layer (src/member/) with the request's context, which is a MemberContext.
 */
export const sharedResolvers: Resolvers = {
  Query: queryResolvers,
  Viewer: { ...viewerIdentityResolvers, ...courseViewerResolvers, ...productViewerResolvers, ...consultingViewerResolvers, ...eventViewerResolvers },
  ViewerSchool: viewerSchoolResolvers,
  CourseConnection: courseConnectionResolvers,
  Course: courseResolvers,
  Section: sectionResolvers,
  Lecture: lectureResolvers,
  CourseRef: courseRefResolvers,
  DigitalProduct: digitalProductResolvers,
  ConsultingService: consultingServiceResolvers,
  ConsultingSlot: consultingSlotResolvers,
  ServiceMeeting: serviceMeetingResolvers,
  EventRegistration: eventRegistrationResolvers,
  Event: eventResolvers,
};
