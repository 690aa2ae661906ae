import { GraphQLError, Kind, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { LruCache } from '../shared/lru-cache.js';
import { depthAndCostRule, LIMITS } from './limits.js';

/** The member API's documents, parsed and validated once per query text (docs/member-graphql.md, "Limits"). */
export interface MemberDocuments {
  /**
   * Fast path for graphql-http's parse and validate: the validated document of a query, or the errors refusing it
   * (syntax, too many tokens, the specified rules, then depth and cost). A document and its errors are worked out once
   * per query text, and its depth and cost once unless its variables can change them. test/member-graphql-fast-paths.test.ts
   * holds it to graphql-http's answer with the same rules.
   */
  admit(query: string, variables: Readonly<Record<string, unknown>>): DocumentNode | readonly GraphQLError[];
  /** The parsed and validated document of a query text, or its errors (the first half of `admit`, without depth and cost). */
  validated(query: string): DocumentNode | readonly GraphQLError[];
  /** A validated document within depth and cost for these variables, or the errors refusing it (the second half of `admit`). */
  withinLimits(document: DocumentNode, variables: Readonly<Record<string, unknown>>): DocumentNode | readonly GraphQLError[];
}

/** Whether the depth and cost of a document can depend on its variables (a page size given as a variable). */
function usesVariables(document: DocumentNode): boolean {
  return document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && (definition.variableDefinitions?.length ?? 0) > 0);
}

export function memberDocuments(schema: GraphQLSchema): MemberDocuments {
  const validated = new LruCache<string, DocumentNode | readonly GraphQLError[]>(500);
  /** Per validated document: its depth and cost errors, when they cannot depend on variables. */
  const limitsOf = new WeakMap<DocumentNode, readonly GraphQLError[]>();

  function documentFor(query: string): DocumentNode | readonly GraphQLError[] {
    const cached = validated.get(query);
    if (cached) return cached;
    let result: DocumentNode | readonly GraphQLError[];
    try {
      const document = parse(query, { maxTokens: LIMITS.maxTokens });
      const errors = validate(schema, document, specifiedRules);
      result = errors.length > 0 ? errors : document;
    } catch (error) {
      result = [error instanceof GraphQLError ? error : new GraphQLError(String(error))];
    }
    validated.set(query, result);
    return result;
  }

  function limitErrors(document: DocumentNode, variables: Readonly<Record<string, unknown>>): readonly GraphQLError[] {
    const cached = limitsOf.get(document);
    if (cached) return cached;
    const errors = validate(schema, document, [depthAndCostRule(variables)]);
    if (!usesVariables(document)) limitsOf.set(document, errors);
    return errors;
  }

  function withinLimits(document: DocumentNode, variables: Readonly<Record<string, unknown>>): DocumentNode | readonly GraphQLError[] {
    const tooBig = limitErrors(document, variables);
    return tooBig.length > 0 ? tooBig : document;
  }

  return {
    admit(query, variables) {
      const document = documentFor(query);
      return 'kind' in document ? withinLimits(document, variables) : document;
    },
    validated: documentFor,
    withinLimits,
  };
}
