import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { variantProfile, type Variant } from '../../variant.js';
import { UsageError, type ContractSources } from './sources.js';

/** Whether an SDL file (a path such as `schema/variant-a/payments.graphql`) is directly in one of the folders. */
function inFolders(file: string, folders: readonly string[]): boolean {
  return folders.includes(file.slice(0, file.lastIndexOf('/')));
}

/** The schema of one variant built from one side's sources (the variant profile's schema folders), or null when that side has no SDL. */
export function schemaOf(sources: ContractSources, variant: Variant): GraphQLSchema | null {
  const folders = variantProfile(variant).memberGraphql.schemaFolders;
  const typeDefs = [...sources.graphqlFiles].filter(([file]) => inFolders(file, folders)).map(([, text]) => text);
  if (typeDefs.length === 0) return null;
  try {
    return makeExecutableSchema({ typeDefs });
  } catch (error) {
    throw new UsageError(`the GraphQL schema (variant ${variant}) of ${sources.label} does not build: ${error instanceof Error ? error.message : String(error)}`);
  }
}
