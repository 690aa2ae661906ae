import type { QueryResolvers, ViewerResolvers, ViewerSchoolResolvers } from '../../../../../generated/graphql/resolvers.js';
import { schools } from './schools.js';
import { viewer } from './viewer.js';

export const queryResolvers: QueryResolvers = { viewer };

/** Identity fields of Viewer; the connections are added by their domain folders. */
export const viewerIdentityResolvers: ViewerResolvers = {
  id: (record) => String(record.id),
  avatar: (record) => record.avatarUrl,
  schools,
};

export const viewerSchoolResolvers: ViewerSchoolResolvers = {
  id: (school) => String(school.siteId),
  url: (school) => school.origin,
};
