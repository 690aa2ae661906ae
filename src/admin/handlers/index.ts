import type { AdminHandlers } from '../api/types.js';
import { getMcpConnections } from './mcp-connections/get-mcp-connections.js';
import { updateMcpConnections } from './mcp-connections/update-mcp-connections.js';
import { createOAuthApplication } from './oauth-applications/create-oauth-application.js';
import { deleteOAuthApplication } from './oauth-applications/delete-oauth-application.js';
import { getOAuthApplication } from './oauth-applications/get-oauth-application.js';
import { listOAuthApplications } from './oauth-applications/list-oauth-applications.js';
import { reviewOAuthApplication } from './oauth-applications/review-oauth-application.js';
import { rotateOAuthApplicationSecret } from './oauth-applications/rotate-oauth-application-secret.js';
import { updateOAuthApplication } from './oauth-applications/update-oauth-application.js';
import { getSchool } from './school/get-school.js';
import { updateSchool } from './school/update-school.js';

// ---- imports: area courses ----

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

// ---- imports: area scheduling ----

// ---- imports: area content ----

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
  reviewOAuthApplication,

  // ---- handlers: area courses ----

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

  // ---- handlers: area scheduling ----

  // ---- handlers: area content ----
};
