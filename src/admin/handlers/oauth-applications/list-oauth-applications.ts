import { listApplications, type ApplicationFilters, type ApplicationSortField } from '../../../clients/applications.js';
import type { AdminHandler } from '../../api/types.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { applicationRepresentation } from './representation.js';

const DEFAULT_LIMIT = 20;
const DEFAULT_SORT = '-createdAt';

/** GET /oauth-applications (school:read): one page of the site's applications, keyset-paginated, filtered, sorted. */
export const listOAuthApplications: AdminHandler<'listOAuthApplications'> = async ({ db, site, query }) => {
  const sort = query.sort ?? DEFAULT_SORT;
  const descending = sort.startsWith('-');
  const field = (descending ? sort.slice(1) : sort) as ApplicationSortField;
  const filters: ApplicationFilters = {
    ...(query.audience === undefined ? {} : { audience: query.audience }),
    ...(query.confidential === undefined ? {} : { confidential: query.confidential }),
    ...(query.kind === undefined ? {} : { kind: query.kind }),
    ...(query.reviewed === undefined ? {} : { reviewed: query.reviewed }),
  };
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort, field, filters);
  const page = await listApplications(db, site.id, { limit: query.limit ?? DEFAULT_LIMIT, sort: { field, descending }, filters, ...(after ? { after } : {}) });
  return {
    status: 200,
    body: { data: page.applications.map(applicationRepresentation), nextCursor: page.next === null ? null : encodeCursor(sort, filters, page.next) },
  };
};
