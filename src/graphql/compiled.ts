import { execute as interpret, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

type Executor = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/**
 * Executes operations through graphql-jit: each (document, operation name) is compiled once into a function that
 * walks exactly the fields the operation selects, instead of interpreting the document field by field. Documents
 * come from the endpoint's cache of validated documents, so a compiled query lives as long as its document does.
 * An operation graphql-jit will not compile is executed by graphql-js, so the answer never depends on the compiler.
 */
export function compiledExecutor(schema: GraphQLSchema): Executor {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  function compiledFor(document: DocumentNode, operationName: string | null | undefined): CompiledQuery | null {
    let byOperation = compiled.get(document);
    if (!byOperation) {
      byOperation = new Map();
      compiled.set(document, byOperation);
    }
    const key = operationName ?? '';
    let query = byOperation.get(key);
    if (query === undefined) {
      query = null;
      try {
        const result: CompiledQuery | ExecutionResult = compileQuery(schema, document, operationName ?? undefined, { disablingCapturingStackErrors: true });
        if (isCompiledQuery(result)) query = result;
      } catch {
        // graphql-js executes it instead.
      }
      byOperation.set(key, query);
    }
    return query;
  }

  return (args) => {
    const query = args.schema === schema ? compiledFor(args.document, args.operationName) : null;
    if (!query) return interpret(args);
    return query.query(args.rootValue, args.contextValue, args.variableValues ?? {}) as Promise<ExecutionResult> | ExecutionResult;
  };
}

/**
 * The locations of an error as graphql-js would give them: from its AST nodes, or, for errors raised by compiled
 * code (which carry locations but no nodes), from the locations themselves.
 */
export function withLocationsOf(source: GraphQLError, target: GraphQLError): GraphQLError {
  if (target.locations === undefined && source.locations !== undefined && source.locations.length > 0) {
    Object.defineProperty(target, 'locations', { value: source.locations, enumerable: true });
  }
  return target;
}
