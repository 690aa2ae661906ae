import { execute as interpret, isEnumType, isScalarType, isSpecifiedScalarType, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLError, type GraphQLLeafType, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

type Executor = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/**
 * What compiled queries do with the values resolvers return for String, Int, Float, Boolean, ID and enum fields.
 * - `trusted` (production): answered as returned. graphql-jit's serialising path allocates an error's locations and
 *   path for every leaf it answers, which was most of the garbage of a large answer (a syllabus of 1,000 lectures).
 * - `checked` (everywhere else, so in every test): serialised, and a value that serialising would change (a number
 *   for an ID, an internal enum value) is a field error, so `trusted` answers what graphql-js would.
 * Custom scalars (DateTime, Money) are serialised either way.
 */
export type LeafValues = 'trusted' | 'checked';

const defaultLeafValues = (): LeafValues => (process.env.NODE_ENV === 'production' ? 'trusted' : 'checked');

/** Serialisers for the built-in scalars and enums that refuse a value not already in its serialised form. */
function identityCheckingSerializers(schema: GraphQLSchema): Record<string, (value: unknown) => unknown> {
  const serializers: Record<string, (value: unknown) => unknown> = {};
  for (const type of Object.values(schema.getTypeMap())) {
    const leaf: GraphQLLeafType | null = isEnumType(type) || (isScalarType(type) && isSpecifiedScalarType(type)) ? type : null;
    if (leaf === null) continue;
    serializers[leaf.name] = (value) => {
      const serialized = leaf.serialize(value);
      if (serialized !== value) throw new TypeError(`${leaf.name} cannot represent ${typeof value} ${String(value)} as it is: resolvers must return the serialised value`);
      return serialized;
    };
  }
  return serializers;
}

/**
 * Executes operations through graphql-jit: each (document, operation name) is compiled once into a function that
 * walks exactly the fields the operation selects, instead of interpreting the document field by field. Documents
 * come from the endpoint's cache of validated documents, so a compiled query lives as long as its document does.
 * An operation graphql-jit will not compile is executed by graphql-js, so the answer never depends on the compiler.
 */
export function compiledExecutor(schema: GraphQLSchema, leafValues: LeafValues = defaultLeafValues()): Executor {
  const leafOptions = leafValues === 'trusted' ? { disableLeafSerialization: true } : { customSerializers: identityCheckingSerializers(schema) };
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
        const result: CompiledQuery | ExecutionResult = compileQuery(schema, document, operationName ?? undefined, { disablingCapturingStackErrors: true, ...leafOptions });
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
    const result = query.query(args.rootValue, args.contextValue, args.variableValues ?? {}) as Promise<ExecutionResult> | ExecutionResult;
    // graphql-jit words the refusal of a variable it cannot coerce its own way: that request error (no `data`, nothing
    // executed) is answered by graphql-js, which executes nothing for it either.
    if (!(result instanceof Promise) && !('data' in result)) return interpret(args);
    return result;
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
