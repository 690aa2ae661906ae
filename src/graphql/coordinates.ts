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

/**
 * The schema coordinates a member API request uses (docs/usage.md, "What is counted"): the fields its operation
 * selects (with the fragments it spreads), the arguments it passes (`Type.field(argument:)`), and the input fields
 * (`Input.field`) and enum values (`Enum.VALUE`) it gives, whether written in the document or sent as variables.
 * Introspection (`__schema`, `__typename`, the `__` types) is not part of the contract and is not counted.
 *
 * The document part is worked out once per document and operation (documents come from a cache, so the same
 * DocumentNode object comes back); the variables are looked at only when one of the operation's variables can carry
 * input fields or enum values.
 */
export interface OperationCoordinates {
  /** Every coordinate the operation's document uses, sorted. */
  readonly inDocument: readonly string[];
  /** The operation's variables whose type can carry input fields or enum values. */
  readonly carriers: ReadonlyArray<{ readonly name: string; readonly type: GraphQLInputType }>;
}

const NONE: OperationCoordinates = Object.freeze({ inDocument: Object.freeze([]), carriers: Object.freeze([]) });

const isIntrospection = (name: string) => name.startsWith('__');

/** Whether a value of `type` can hold an input object field or an enum value. */
function carriesMembers(type: GraphQLInputType): boolean {
  const named = getNamedType(type);
  return isInputObjectType(named) || isEnumType(named);
}

export class CoordinateTracker {
  private readonly schema: GraphQLSchema;
  private readonly byDocument = new WeakMap<DocumentNode, Map<string, OperationCoordinates>>();

  constructor(schema: GraphQLSchema) {
    this.schema = schema;
  }

  /** The operation that runs (by name, or the only one), or null when the document has no such operation. */
  operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | null {
    return getOperationAST(document, operationName) ?? null;
  }

  /** The document part of the operation's coordinates, cached per document and operation. */
  of(document: DocumentNode, operation: OperationDefinitionNode | null): OperationCoordinates {
    if (!operation) return NONE;
    const key = operation.name?.value ?? '';
    let byOperation = this.byDocument.get(document);
    const cached = byOperation?.get(key);
    if (cached) return cached;
    const found = this.walkDocument(document, key);
    const carriers: Array<{ name: string; type: GraphQLInputType }> = [];
    for (const definition of operation.variableDefinitions ?? []) {
      const type = typeFromAST(this.schema, definition.type) as GraphQLInputType | undefined;
      if (type && carriesMembers(type)) carriers.push({ name: definition.variable.name.value, type });
    }
    const coordinates: OperationCoordinates = Object.freeze({ inDocument: Object.freeze([...found].sort()), carriers: Object.freeze(carriers) });
    if (!byOperation) {
      byOperation = new Map();
      this.byDocument.set(document, byOperation);
    }
    byOperation.set(key, coordinates);
    return coordinates;
  }

  /** The input fields and enum values inside the variables' values (null when there are none), sorted. */
  inVariables(coordinates: OperationCoordinates, variables: Readonly<Record<string, unknown>>): string[] | null {
    if (coordinates.carriers.length === 0) return null;
    const found = new Set<string>();
    for (const { name, type } of coordinates.carriers) walkValue(type, variables[name], found);
    return found.size === 0 ? null : [...found].sort();
  }

  private walkDocument(document: DocumentNode, operationKey: string): Set<string> {
    const found = new Set<string>();
    const typeInfo = new TypeInfo(this.schema);
    // Only the operation that runs, with the fragments it spreads.
    const executed = separateOperations(document)[operationKey];
    if (!executed) return found;
    visit(
      executed,
      visitWithTypeInfo(typeInfo, {
        Field() {
          const parent = typeInfo.getParentType();
          const field = typeInfo.getFieldDef();
          if (parent && field && !isIntrospection(parent.name) && !isIntrospection(field.name)) found.add(`${parent.name}.${field.name}`);
        },
        Argument(node) {
          const parent = typeInfo.getParentType();
          const field = typeInfo.getFieldDef();
          // Directive arguments (@include(if:)) are not the schema's fields' arguments.
          if (parent && field && !typeInfo.getDirective() && !isIntrospection(parent.name) && !isIntrospection(field.name)) found.add(`${parent.name}.${field.name}(${node.name.value}:)`);
        },
        ObjectField(node) {
          const parent = getNamedType(typeInfo.getParentInputType() ?? undefined);
          if (parent) found.add(`${parent.name}.${node.name.value}`);
        },
        EnumValue(node) {
          const type = getNamedType(typeInfo.getInputType() ?? undefined);
          if (type && !isIntrospection(type.name)) found.add(`${type.name}.${node.value}`);
        },
      }),
    );
    return found;
  }
}

/** The input fields and enum values inside one variable's value. */
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
      found.add(`${nullable.name}.${name}`);
      walkValue(field.type, item, found);
    }
  } else if (isEnumType(nullable) && typeof value === 'string' && nullable.getValue(value)) {
    found.add(`${nullable.name}.${value}`);
  }
}
