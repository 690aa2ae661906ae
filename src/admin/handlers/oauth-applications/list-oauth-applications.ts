import { listApplications } from '../../../clients/applications.js';
import type { AdminHandler } from '../../api/types.js';
import { applicationRepresentation } from './representation.js';

/** GET /oauth-applications (school:read): one page of the site's applications, keyset-paginated, filtered, sorted. */
export const listOAuthApplications: AdminHandler<'listOAuthApplications'> = async ({ db, site, query }) => {
  const { audience, confidential, kind, reviewed } = query;
  const page = await listApplications(db, site.id, { audience, confidential, kind, reviewed }, query);
  return { status: 200, body: { data: page.applications.map(applicationRepresentation), nextCursor: page.nextCursor } };
};
