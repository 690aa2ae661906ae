import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { UsageError, type ContractSources } from './sources.js';

/** The member API's two schema variants: B is schema/*.graphql alone; A adds schema/variant-a/. */
export const VARIANTS = {
  A: (file: string) => !file.slice('schema/'.length).includes('/') || file.startsWith('schema/variant-a/'),
  B: (file: string) => !file.slice('schema/'.length).includes('/'),
} as const;

export type Variant = keyof typeof VARIANTS;

export const VARIANT_NAMES: readonly Variant[] = ['A', 'B'];

/** The schema of one variant built from one side's sources, or null when that side has no SDL. */
export function schemaOf(sources: ContractSources, variant: Variant): GraphQLSchema | null {
  const typeDefs = [...sources.graphqlFiles].filter(([file]) => VARIANTS[variant](file)).map(([, text]) => text);
  if (typeDefs.length === 0) return null;
  try {
    return makeExecutableSchema({ typeDefs });
  } catch (error) {
    throw new UsageError(`the GraphQL schema (variant ${variant}) of ${sources.label} does not build: ${error instanceof Error ? error.message : String(error)}`);
  }
}
