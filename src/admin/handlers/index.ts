import type { AdminHandlers } from '../api/types.js';
import { getMcpConnections } from './mcp-connections/get-mcp-connections.js';
import { updateMcpConnections } from './mcp-connections/update-mcp-connections.js';
import { createOAuthApplication } from './oauth-applications/create-oauth-application.js';
import { deleteOAuthApplication } from './oauth-applications/delete-oauth-application.js';
import { getOAuthApplication } from './oauth-applications/get-oauth-application.js';
import { listOAuthApplications } from './oauth-applications/list-oauth-applications.js';
import { reviewOAuthApplication } from './oauth-applications/review-oauth-application.js';
import { listMemberConnectedApps } from './connected-apps/list-member-connected-apps.js';
import { listOAuthApplicationGrants } from './connected-apps/list-oauth-application-grants.js';
import { revokeMemberConnectedApp } from './connected-apps/revoke-member-connected-app.js';
import { rotateOAuthApplicationSecret } from './oauth-applications/rotate-oauth-application-secret.js';
import { revokeOAuthApplicationTokens } from './oauth-applications/revoke-oauth-application-tokens.js';
import { updateOAuthApplication } from './oauth-applications/update-oauth-application.js';
import { deleteTrustedDocument } from './trusted-documents/delete-trusted-document.js';
import { listTrustedDocuments } from './trusted-documents/list-trusted-documents.js';
import { publishTrustedDocuments } from './trusted-documents/publish-trusted-documents.js';
import { getSchool } from './school/get-school.js';
import { updateSchool } from './school/update-school.js';

// ---- imports: area courses ----
import { createCourse } from './courses/create-course.js';
import { deleteCourse } from './courses/delete-course.js';
import { getCourse } from './courses/get-course.js';
import { listCourses } from './courses/list-courses.js';
import { setCourseLecturers } from './courses/set-course-lecturers.js';
import { updateCourse } from './courses/update-course.js';
import { getCourseCurriculum } from './curriculum/get-course-curriculum.js';
import { createCourseSection } from './course-sections/create-course-section.js';
import { deleteCourseSection } from './course-sections/delete-course-section.js';
import { getCourseSection } from './course-sections/get-course-section.js';
import { listCourseSections } from './course-sections/list-course-sections.js';
import { updateCourseSection } from './course-sections/update-course-section.js';
import { createLecture } from './lectures/create-lecture.js';
import { deleteLecture } from './lectures/delete-lecture.js';
import { getLecture } from './lectures/get-lecture.js';
import { listLectures } from './lectures/list-lectures.js';
import { updateLecture } from './lectures/update-lecture.js';
import { createLecturer } from './lecturers/create-lecturer.js';
import { deleteLecturer } from './lecturers/delete-lecturer.js';
import { getLecturer } from './lecturers/get-lecturer.js';
import { listLecturers } from './lecturers/list-lecturers.js';
import { updateLecturer } from './lecturers/update-lecturer.js';

// ---- imports: area people ----
import { createEnrollment } from './enrollments/create-enrollment.js';
import { deleteEnrollment } from './enrollments/delete-enrollment.js';
import { getEnrollmentProgress } from './enrollments/get-enrollment-progress.js';
import { getEnrollment } from './enrollments/get-enrollment.js';
import { listEnrollments } from './enrollments/list-enrollments.js';
import { updateEnrollment } from './enrollments/update-enrollment.js';
import { createMember } from './members/create-member.js';
import { deleteMember } from './members/delete-member.js';
import { getMember } from './members/get-member.js';
import { listMembers } from './members/list-members.js';
import { updateMember } from './members/update-member.js';
import { createMembershipPlan } from './membership-plans/create-membership-plan.js';
import { deleteMembershipPlan } from './membership-plans/delete-membership-plan.js';
import { getMembershipPlan } from './membership-plans/get-membership-plan.js';
import { listMembershipPlans } from './membership-plans/list-membership-plans.js';
import { updateMembershipPlan } from './membership-plans/update-membership-plan.js';
import { cancelSubscription } from './subscriptions/cancel-subscription.js';
import { createSubscription } from './subscriptions/create-subscription.js';
import { getSubscription } from './subscriptions/get-subscription.js';
import { listSubscriptions } from './subscriptions/list-subscriptions.js';
import { updateSubscription } from './subscriptions/update-subscription.js';

// ---- imports: area commerce ----
import { getAnalyticsSummary } from './analytics/get-analytics-summary.js';
import { getDeprecationUsage } from './deprecations/get-deprecation-usage.js';
import { exportApiUsage } from './usage/export-api-usage.js';
import { listApiUsage } from './usage/list-api-usage.js';
import { createCoupon } from './coupons/create-coupon.js';
import { deleteCoupon } from './coupons/delete-coupon.js';
import { getCoupon } from './coupons/get-coupon.js';
import { listCoupons } from './coupons/list-coupons.js';
import { updateCoupon } from './coupons/update-coupon.js';
import { createDigitalProduct } from './digital-products/create-digital-product.js';
import { deleteDigitalProduct } from './digital-products/delete-digital-product.js';
import { getDigitalProductOwner } from './digital-products/get-digital-product-owner.js';
import { getDigitalProduct } from './digital-products/get-digital-product.js';
import { grantDigitalProduct } from './digital-products/grant-digital-product.js';
import { listDigitalProductOwners } from './digital-products/list-digital-product-owners.js';
import { listDigitalProducts } from './digital-products/list-digital-products.js';
import { revokeDigitalProduct } from './digital-products/revoke-digital-product.js';
import { updateDigitalProduct } from './digital-products/update-digital-product.js';
import { getOrder } from './orders/get-order.js';
import { listOrders } from './orders/list-orders.js';

// ---- imports: area scheduling ----
import { createConsultingService } from './consulting-services/create-consulting-service.js';
import { deleteConsultingService } from './consulting-services/delete-consulting-service.js';
import { getConsultingService } from './consulting-services/get-consulting-service.js';
import { listConsultingServices } from './consulting-services/list-consulting-services.js';
import { updateConsultingService } from './consulting-services/update-consulting-service.js';
import { createConsultingSlot } from './consulting-slots/create-consulting-slot.js';
import { deleteConsultingSlot } from './consulting-slots/delete-consulting-slot.js';
import { getConsultingSlot } from './consulting-slots/get-consulting-slot.js';
import { listConsultingSlots } from './consulting-slots/list-consulting-slots.js';
import { updateConsultingSlot } from './consulting-slots/update-consulting-slot.js';
import { createEventRegistration } from './event-registrations/create-event-registration.js';
import { getEventRegistration } from './event-registrations/get-event-registration.js';
import { listEventRegistrations } from './event-registrations/list-event-registrations.js';
import { updateEventRegistration } from './event-registrations/update-event-registration.js';
import { cancelEvent } from './events/cancel-event.js';
import { createEvent } from './events/create-event.js';
import { deleteEvent } from './events/delete-event.js';
import { getEvent } from './events/get-event.js';
import { listEvents } from './events/list-events.js';
import { updateEvent } from './events/update-event.js';
import { cancelMeeting } from './meetings/cancel-meeting.js';
import { confirmMeeting } from './meetings/confirm-meeting.js';
import { createConsultingMeeting } from './meetings/create-consulting-meeting.js';
import { getMeeting } from './meetings/get-meeting.js';
import { listMeetings } from './meetings/list-meetings.js';

// ---- imports: area content ----
import { getAppearance } from './appearance/get-appearance.js';
import { updateAppearance } from './appearance/update-appearance.js';
import { getComment } from './comments/get-comment.js';
import { listComments } from './comments/list-comments.js';
import { getForm } from './forms/get-form.js';
import { listFormResponses } from './forms/list-form-responses.js';
import { listForms } from './forms/list-forms.js';
import { createPage } from './pages/create-page.js';
import { deletePage } from './pages/delete-page.js';
import { getPage } from './pages/get-page.js';
import { listPages } from './pages/list-pages.js';
import { updatePage } from './pages/update-page.js';
import { createPost } from './posts/create-post.js';
import { deletePost } from './posts/delete-post.js';
import { getPost } from './posts/get-post.js';
import { listPosts } from './posts/list-posts.js';
import { publishPost } from './posts/publish-post.js';
import { unpublishPost } from './posts/unpublish-post.js';
import { updatePost } from './posts/update-post.js';
import { createStorageUpload } from './storage-uploads/create-storage-upload.js';
import { deleteStorageUpload } from './storage-uploads/delete-storage-upload.js';
import { getStorageUpload } from './storage-uploads/get-storage-upload.js';
import { listStorageUploads } from './storage-uploads/list-storage-uploads.js';
import { uploadStorageContent } from './storage-uploads/upload-storage-content.js';

/** Every operation of openapi/admin.yaml, by operationId; one file per operation under handlers/<resource>/. */
export const ADMIN_HANDLERS: AdminHandlers = {
  getSchool,
  updateSchool,
  getMcpConnections,
  updateMcpConnections,
  listOAuthApplications,
  createOAuthApplication,
  getOAuthApplication,
  updateOAuthApplication,
  deleteOAuthApplication,
  rotateOAuthApplicationSecret,
  revokeOAuthApplicationTokens,
  reviewOAuthApplication,
  listOAuthApplicationGrants,
  listMemberConnectedApps,
  revokeMemberConnectedApp,
  listTrustedDocuments,
  publishTrustedDocuments,
  deleteTrustedDocument,

  // ---- handlers: area courses ----
  listCourses,
  createCourse,
  getCourse,
  updateCourse,
  deleteCourse,
  setCourseLecturers,
  getCourseCurriculum,
  listCourseSections,
  createCourseSection,
  getCourseSection,
  updateCourseSection,
  deleteCourseSection,
  listLectures,
  createLecture,
  getLecture,
  updateLecture,
  deleteLecture,
  listLecturers,
  createLecturer,
  getLecturer,
  updateLecturer,
  deleteLecturer,

  // ---- handlers: area people ----
  listMembers,
  createMember,
  getMember,
  updateMember,
  deleteMember,
  listEnrollments,
  createEnrollment,
  getEnrollment,
  updateEnrollment,
  deleteEnrollment,
  getEnrollmentProgress,
  listMembershipPlans,
  createMembershipPlan,
  getMembershipPlan,
  updateMembershipPlan,
  deleteMembershipPlan,
  listSubscriptions,
  createSubscription,
  getSubscription,
  updateSubscription,
  cancelSubscription,

  // ---- handlers: area commerce ----
  listOrders,
  getOrder,
  listCoupons,
  createCoupon,
  getCoupon,
  updateCoupon,
  deleteCoupon,
  listDigitalProducts,
  createDigitalProduct,
  getDigitalProduct,
  updateDigitalProduct,
  deleteDigitalProduct,
  listDigitalProductOwners,
  grantDigitalProduct,
  getDigitalProductOwner,
  revokeDigitalProduct,
  getAnalyticsSummary,
  getDeprecationUsage,
  listApiUsage,
  exportApiUsage,

  // ---- handlers: area scheduling ----
  listEvents,
  createEvent,
  getEvent,
  updateEvent,
  deleteEvent,
  cancelEvent,
  listEventRegistrations,
  createEventRegistration,
  getEventRegistration,
  updateEventRegistration,
  listConsultingServices,
  createConsultingService,
  getConsultingService,
  updateConsultingService,
  deleteConsultingService,
  listConsultingSlots,
  createConsultingSlot,
  getConsultingSlot,
  updateConsultingSlot,
  deleteConsultingSlot,
  createConsultingMeeting,
  listMeetings,
  getMeeting,
  confirmMeeting,
  cancelMeeting,

  // ---- handlers: area content ----
  getAppearance,
  updateAppearance,
  listPosts,
  createPost,
  getPost,
  updatePost,
  deletePost,
  publishPost,
  unpublishPost,
  listPages,
  createPage,
  getPage,
  updatePage,
  deletePage,
  listComments,
  getComment,
  listForms,
  getForm,
  listFormResponses,
  listStorageUploads,
  createStorageUpload,
  getStorageUpload,
  deleteStorageUpload,
  uploadStorageContent,
};
