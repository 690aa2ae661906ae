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

  // ---- handlers: area commerce ----

  // ---- handlers: area scheduling ----

  // ---- handlers: area content ----
};
