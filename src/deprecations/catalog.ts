import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { readContract } from '../admin/contract.js';
import type { Deprecation } from './deprecation.js';
import { graphqlDeprecations } from './graphql-deprecations.js';
import { openapiDeprecations } from './openapi-deprecations.js';
import { typeDefsFor } from '../graphql/sdl.js';
import type { DeprecatedApi } from './usage.js';
import type { VariantProfile } from '../variant.js';

/** A deprecated element of the contracts this server runs, as calls of it are counted and reported. */
export interface KnownDeprecation {
  api: DeprecatedApi;
  /** GraphQL: the schema coordinate (`Course.slug`, `Query.courses(after:)`); admin API: the operationId. */
  element: string;
  /** `Course.slug`, `GET /school/mcp-connections` */
  where: string;
  sunset: string | null;
  replacement: string | null;
  /** Admin API operations: the day the deprecation took effect (`x-deprecated-since`). */
  since: string | null;
}

function known(api: DeprecatedApi, deprecation: Deprecation): KnownDeprecation {
  return { api, element: deprecation.key, where: deprecation.where, sunset: deprecation.sunset, replacement: deprecation.replacement, since: deprecation.since ?? null };
}

/** The member API's deprecated fields, arguments, input fields and enum values, by schema coordinate. */
export function graphqlCatalog(schema: GraphQLSchema): Map<string, KnownDeprecation> {
  return new Map(graphqlDeprecations(schema).map((deprecation) => [deprecation.key, known('graphql', deprecation)]));
}

/** The admin API's deprecated operations, by operationId (deprecated parameters and properties are not counted). */
export function adminCatalog(document: unknown): Map<string, KnownDeprecation> {
  const operations = openapiDeprecations(document).filter((deprecation) => deprecation.key !== deprecation.pointer);
  return new Map(operations.map((deprecation) => [deprecation.key, known('admin', deprecation)]));
}

const catalogs = new Map<VariantProfile, readonly KnownDeprecation[]>();

/**
 * Every deprecation of the running contracts (the variant's member schema and the admin API), for reports. Built
 * on first use, from the SDL without resolvers: the report reads the contracts, not the executable server.
 */
export function runningDeprecations(variant: VariantProfile): readonly KnownDeprecation[] {
  let catalog = catalogs.get(variant);
  if (!catalog) {
    const schema = makeExecutableSchema({ typeDefs: typeDefsFor(variant) });
    catalog = [...graphqlCatalog(schema).values(), ...adminCatalog(readContract()).values()];
    catalogs.set(variant, catalog);
  }
  return catalog;
}
