import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLError, Kind, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { VariantProfile } from '../../variant.js';
import { depthAndCostRule, LIMITS } from '../limits.js';
import { typeDefsFor } from '../sdl.js';

/**
 * A trusted document is checked when it is published, with the rules a sent document meets at the member API
 * (src/graphql/documents.ts): the token limit, the GraphQL validation rules (GraphQL spec, section 5) and the
 * depth and cost limits (docs/member-graphql.md, "Limits"), so a registered document never fails them later.
 */

const schemas = new Map<string, GraphQLSchema>();

/** The member schema of a deployment's variant, types only (validation needs no resolvers), built once per process. */
export function validationSchemaFor(variant: VariantProfile): GraphQLSchema {
  let schema = schemas.get(variant.name);
  if (!schema) {
    schema = makeExecutableSchema({ typeDefs: typeDefsFor(variant) });
    schemas.set(variant.name, schema);
  }
  return schema;
}

export type DocumentCheck = { valid: true; operationNames: string[] } | { valid: false; operationNames: string[]; errors: string[] };

/** The operation names a document defines, in document order (anonymous operations are left out). */
export function operationNamesOf(document: DocumentNode): string[] {
  return document.definitions.flatMap((definition) => (definition.kind === Kind.OPERATION_DEFINITION && definition.name ? [definition.name.value] : []));
}

function describe(error: GraphQLError): string {
  const location = error.locations?.[0];
  return location ? `${error.message} (line ${location.line}, column ${location.column})` : error.message;
}

/**
 * Parses and validates one document against `schema`. Depth and cost are measured with the page sizes the document
 * writes, or the assumed page size where a variable gives it (the member API measures again with the real values).
 */
export function checkDocument(schema: GraphQLSchema, text: string): DocumentCheck {
  let document: DocumentNode;
  try {
    document = parse(text, { maxTokens: LIMITS.maxTokens });
  } catch (error) {
    return { valid: false, operationNames: [], errors: [error instanceof GraphQLError ? describe(error) : String(error)] };
  }
  const operationNames = operationNamesOf(document);
  const errors = validate(schema, document, specifiedRules);
  const limits = errors.length === 0 ? validate(schema, document, [depthAndCostRule({})]) : [];
  const all = [...errors, ...limits];
  return all.length === 0 ? { valid: true, operationNames } : { valid: false, operationNames, errors: all.map(describe) };
}
