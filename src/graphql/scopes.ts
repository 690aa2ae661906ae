import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, GraphQLError, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context.js';

/** `Type.field` → the scopes of its @requiresScope (any one grants it), read once from the SDL. */
export type ScopeMap = ReadonlyMap<string, readonly string[]>;

export function requiredScopes(schema: GraphQLSchema): ScopeMap {
  const map = new Map<string, readonly string[]>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!('getFields' in type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const directive = getDirective(schema, field, 'requiresScope')?.[0] as { scopes?: string[] } | undefined;
      if (directive?.scopes) map.set(`${type.name}.${field.name}`, directive.scopes);
    }
  }
  return map;
}

export function insufficientScopeError(scopes: readonly string[]): GraphQLError {
  return new GraphQLError(`insufficient scope, required ${scopes.join(' or ')}`, { extensions: { code: 'INSUFFICIENT_SCOPE', requiredScope: scopes[0], requiredScopes: scopes } });
}

/**
 * Enforces @requiresScope on every field that declares it: a token without one of the scopes gets a GraphQL `errors`
 * entry for that field (spec, Errors: variant A, "one of the two account scopes but a field needs the other").
 */
export function enforceScopes(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field) => {
      const scopes = (getDirective(schema, field, 'requiresScope')?.[0] as { scopes?: string[] } | undefined)?.scopes;
      if (!scopes) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve: (source, args, context: GraphQLContext, info) => {
          if (!scopes.some((scope) => (context.scopes as readonly string[]).includes(scope))) throw insufficientScopeError(scopes);
          return resolve(source, args, context, info);
        },
      };
    },
  });
}

/** The scope sets an operation's selected fields need (for variant B's HTTP 403 before execution). */
export function scopesNeededBy(schema: GraphQLSchema, scopeMap: ScopeMap, document: DocumentNode): Array<readonly string[]> {
  const needed: Array<readonly string[]> = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const parent = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        const scopes = parent && field ? scopeMap.get(`${parent.name}.${field.name}`) : undefined;
        if (scopes) needed.push(scopes);
      },
    }),
  );
  return needed;
}
