import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resolversFor } from './resolvers/index.js';
import { typeDefsFor } from './sdl.js';
import { enforceScopes, requiredScopes, type ScopeMap } from './scopes.js';
import { withResolverGroupSpans } from './tracing.js';
import type { VariantProfile } from '../variant.js';

export interface MemberSchema {
  schema: GraphQLSchema;
  scopes: ScopeMap;
}

/** The executable member schema of a deployment, with @requiresScope enforced on every field that declares it. */
export function buildMemberSchema(variant: VariantProfile): MemberSchema {
  const schema = makeExecutableSchema({ typeDefs: typeDefsFor(variant), resolvers: resolversFor(variant) });
  return { schema: withResolverGroupSpans(enforceScopes(schema)), scopes: requiredScopes(schema) };
}
