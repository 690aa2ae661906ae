import type { QueryResolvers } from '../../../../../generated/graphql/resolvers.js';
import { viewerIdentity } from '../../../../member/viewer.js';

/** Query.viewer: the member the token belongs to (spec: "GraphQL operations on the member API"), as read with the token. */
export const viewer: NonNullable<QueryResolvers['viewer']> = (_root, _args, context) => context.viewer ?? viewerIdentity(context);
