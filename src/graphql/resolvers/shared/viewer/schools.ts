import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { viewerSchools } from '../../../../member/schools.js';

/** Viewer.schools: every site where the viewer holds a role, with the role names (spec: viewer). */
export const schools: NonNullable<ViewerResolvers['schools']> = (_viewer, _args, context) => viewerSchools(context);
