import fs from 'node:fs';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import type { Variant } from '../config/config.js';
import { projectPath } from '../shared/paths.js';
import { resolversFor } from './resolvers/index.js';
import { enforceScopes, requiredScopes, type ScopeMap } from './scopes.js';

function sdlFiles(folder: string): string[] {
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => fs.readFileSync(path.join(folder, name), 'utf8'));
}

/** The hand-written SDL of a variant: schema/ is variant B; variant A adds schema/variant-a/ (spec: variants). */
export function typeDefsFor(variant: Variant): string[] {
  const shared = sdlFiles(projectPath('schema'));
  return variant === 'A' ? [...shared, ...sdlFiles(projectPath('schema', 'variant-a'))] : shared;
}

export interface MemberSchema {
  schema: GraphQLSchema;
  scopes: ScopeMap;
}

/** The executable member schema of a variant, with @requiresScope enforced on every field that declares it. */
export function buildMemberSchema(variant: Variant): MemberSchema {
  const schema = makeExecutableSchema({ typeDefs: typeDefsFor(variant), resolvers: resolversFor(variant) });
  return { schema: enforceScopes(schema), scopes: requiredScopes(schema) };
}
