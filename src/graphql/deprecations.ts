import {
  getNamedType,
  getNullableType,
  getOperationAST,
  isEnumType,
  isInputObjectType,
  isListType,
  separateOperations,
  TypeInfo,
  typeFromAST,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { graphqlCatalog, type KnownDeprecation } from '../deprecations/catalog.js';

/**
 * Which deprecated elements of the member schema a request uses (docs/versioning.md, "How clients are told"): the
 * fields its operation selects, the arguments it passes, and the input fields and enum values it gives, whether
 * written in the document or sent as variables. The document part is worked out once per document and operation; the
 * variables are looked at only when the schema deprecates an input field or an enum value.
 */
export interface DeprecationTracker {
  usedBy(document: DocumentNode, operationName: string | null | undefined, variables: Readonly<Record<string, unknown>>): KnownDeprecation[];
}

/** `Type.member` → the type part, to tell input fields and enum values (which variables can carry) from the rest. */
function typeNameOf(coordinate: string): string {
  return coordinate.slice(0, coordinate.indexOf('.'));
}

/** Null when the schema deprecates nothing: then no request pays for looking. */
export function deprecationTracker(schema: GraphQLSchema): DeprecationTracker | null {
  const catalog = graphqlCatalog(schema);
  if (catalog.size === 0) return null;
  const inVariables = [...catalog.keys()].some((coordinate) => {
    const type = schema.getType(typeNameOf(coordinate));
    return isInputObjectType(type) || isEnumType(type);
  });
  const inDocument = new WeakMap<DocumentNode, Map<string, ReadonlySet<string>>>();

  function selected(document: DocumentNode, operation: OperationDefinitionNode | null | undefined): ReadonlySet<string> {
    const key = operation?.name?.value ?? '';
    let byOperation = inDocument.get(document);
    const cached = byOperation?.get(key);
    if (cached) return cached;
    const found = new Set<string>();
    const add = (coordinate: string) => {
      if (catalog.has(coordinate)) found.add(coordinate);
    };
    const typeInfo = new TypeInfo(schema);
    // Only the operation that runs, with the fragments it spreads.
    const executed = operation ? separateOperations(document)[key] : undefined;
    if (executed) {
      visit(
        executed,
        visitWithTypeInfo(typeInfo, {
          Field() {
            const parent = typeInfo.getParentType();
            const field = typeInfo.getFieldDef();
            if (parent && field) add(`${parent.name}.${field.name}`);
          },
          Argument(node) {
            const parent = typeInfo.getParentType();
            const field = typeInfo.getFieldDef();
            if (parent && field && !typeInfo.getDirective()) add(`${parent.name}.${field.name}(${node.name.value}:)`);
          },
          ObjectField(node) {
            const parent = getNamedType(typeInfo.getParentInputType() ?? undefined);
            if (parent) add(`${parent.name}.${node.name.value}`);
          },
          EnumValue(node) {
            const type = getNamedType(typeInfo.getInputType() ?? undefined);
            if (type) add(`${type.name}.${node.value}`);
          },
        }),
      );
    }
    if (!byOperation) {
      byOperation = new Map();
      inDocument.set(document, byOperation);
    }
    byOperation.set(key, found);
    return found;
  }

  /** Deprecated input fields and enum values inside one variable's value. */
  function walkValue(type: GraphQLInputType, value: unknown, found: Set<string>): void {
    if (value === null || value === undefined) return;
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      for (const item of Array.isArray(value) ? value : [value]) walkValue(nullable.ofType, item, found);
    } else if (isInputObjectType(nullable) && typeof value === 'object') {
      const fields = nullable.getFields();
      for (const [name, item] of Object.entries(value)) {
        const field = fields[name];
        if (!field) continue;
        if (catalog.has(`${nullable.name}.${name}`)) found.add(`${nullable.name}.${name}`);
        walkValue(field.type, item, found);
      }
    } else if (isEnumType(nullable) && typeof value === 'string' && catalog.has(`${nullable.name}.${value}`)) {
      found.add(`${nullable.name}.${value}`);
    }
  }

  return {
    usedBy(document, operationName, variables) {
      const operation = getOperationAST(document, operationName);
      let coordinates = selected(document, operation);
      if (inVariables) {
        const found = new Set(coordinates);
        for (const definition of operation?.variableDefinitions ?? []) {
          const type = typeFromAST(schema, definition.type);
          if (type) walkValue(type as GraphQLInputType, variables[definition.variable.name.value], found);
        }
        coordinates = found;
      }
      return [...coordinates].sort().map((coordinate) => catalog.get(coordinate) as KnownDeprecation);
    },
  };
}
