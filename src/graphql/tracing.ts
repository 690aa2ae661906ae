import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, getNamedType, isLeafType, Kind, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { annotateSpan, inSpanNow, tracingIsOn } from '../shared/tracing.js';

type Executor = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/** The root types and the viewer: their object fields are the groups a span each covers (one per domain, not per leaf). */
const GROUP_TYPES = new Set(['Query', 'Mutation', 'Viewer']);

function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (operationName === null || operationName === undefined || definition.name?.value === operationName) return definition;
  }
  return undefined;
}

/**
 * While tracing is on, each execution is a span named as the OpenTelemetry semantic conventions for GraphQL name it
 * (`query`, `query <name>`), with `graphql.operation.type` and `graphql.operation.name`. The executor is returned as
 * it is while tracing is off: nothing is added to a request.
 */
export function tracedExecutor(execute: Executor): Executor {
  if (!tracingIsOn()) return execute;
  return (args) => {
    const operation = operationOf(args.document, args.operationName);
    const type = operation?.operation ?? 'query';
    const name = operation?.name?.value;
    return inSpanNow(name === undefined ? type : `${type} ${name}`, () => {
      annotateSpan('graphql.operation.type', type);
      annotateSpan('graphql.operation.name', name);
      return execute(args);
    });
  };
}

/**
 * While tracing is on, a span `graphql.resolve <Type>.<field>` around each field of the root types and of Viewer that
 * returns objects (a domain's entry: courses, products, meetings…), with `graphql.field.name` and
 * `graphql.field.path`; the leaves below them get no span of their own, which keeps the cost per request low. The
 * schema is returned as it is while tracing is off.
 */
export function withResolverGroupSpans(schema: GraphQLSchema): GraphQLSchema {
  if (!tracingIsOn()) return schema;
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      if (!GROUP_TYPES.has(typeName) || isLeafType(getNamedType(field.type))) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      const spanName = `graphql.resolve ${typeName}.${fieldName}`;
      return {
        ...field,
        resolve: (source, args, context, info) =>
          inSpanNow(spanName, () => {
            annotateSpan('graphql.field.name', fieldName);
            annotateSpan('graphql.field.path', pathOf(info.path));
            return resolve(source, args, context, info);
          }),
      };
    },
  });
}

function pathOf(path: { prev: unknown; key: string | number }): string {
  const keys: Array<string | number> = [];
  for (let at: { prev: unknown; key: string | number } | undefined = path; at; at = at.prev as typeof at) keys.unshift(at.key);
  return keys.join('.');
}
