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
  reviewOAuthApplication,

  // ---- handlers: area courses ----

  // ---- handlers: area people ----

  // ---- handlers: area commerce ----

  // ---- handlers: area scheduling ----

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
