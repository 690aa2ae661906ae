import { getNamedType, GraphQLError, isInterfaceType, isListType, isNonNullType, isObjectType, Kind, type ASTVisitor, type FieldNode, type FragmentDefinitionNode, type GraphQLNamedType, type GraphQLOutputType, type SelectionSetNode, type ValidationContext } from 'graphql';

/** Limits a member API request must stay within (docs/member-graphql.md, "Limits"). */
export const LIMITS = {
  /** Request body size, before parsing. */
  maxBodyBytes: 64 * 1024,
  /** Lexical tokens in a document: stops a huge document before it becomes a huge AST. */
  maxTokens: 4000,
  /** Nesting of selection sets, e.g. viewer { enrolledCourses { nodes { sections { lectures { title } } } } } is 6. */
  maxDepth: 12,
  /** Estimated fields resolved: every connection multiplies its subtree by its page size. */
  maxCost: 250_000,
  /** The largest page any connection serves (src/member/pagination.ts clamps to it or less). */
  maxPageSize: 100,
  /** Page size assumed for a connection without first/last, and for plain lists (sections, lectures, slots). */
  assumedPageSize: 20,
} as const;

function fragmentsOf(context: ValidationContext): Map<string, FragmentDefinitionNode> {
  return new Map(context.getDocument().definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]));
}

/** Fields directly in a selection set, with inline fragments and fragment spreads flattened (cycles are another rule's error). */
function fieldsOf(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen = new Set<string>()): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) fields.push(...fieldsOf(selection.selectionSet, fragments, seen));
    else if (!seen.has(selection.name.value)) {
      const fragment = fragments.get(selection.name.value);
      if (fragment) fields.push(...fieldsOf(fragment.selectionSet, fragments, new Set([...seen, selection.name.value])));
    }
  }
  return fields;
}

/** The page size a connection field asks for: its first/last literal (or variable value), else the default. */
function pageSizeOf(field: FieldNode, variables: Record<string, unknown>): number {
  for (const argument of field.arguments ?? []) {
    if (argument.name.value !== 'first' && argument.name.value !== 'last') continue;
    const value = argument.value.kind === Kind.INT ? Number(argument.value.value) : argument.value.kind === Kind.VARIABLE ? Number(variables[argument.value.name.value]) : NaN;
    if (Number.isFinite(value) && value >= 0) return value;
  }
  return LIMITS.assumedPageSize;
}

interface Measure {
  depth: number;
  cost: number;
}

/**
 * How many times a field's subtree may run: a connection's page size (clamped like the resolvers clamp it), a plain
 * list's assumed size, else once. A connection's own `nodes` and `edges` lists are its page, already counted.
 */
function multiplierOf(field: FieldNode, type: GraphQLOutputType, parent: GraphQLNamedType, variables: Record<string, unknown>): number {
  const named = getNamedType(type);
  if (named.name.endsWith('Connection')) return Math.min(pageSizeOf(field, variables), LIMITS.maxPageSize);
  if (parent.name.endsWith('Connection') || parent.name.endsWith('Edge')) return 1;
  let unwrapped: GraphQLOutputType = type;
  if (isNonNullType(unwrapped)) unwrapped = unwrapped.ofType;
  return isListType(unwrapped) ? LIMITS.assumedPageSize : 1;
}

function measure(selectionSet: SelectionSetNode, parent: GraphQLNamedType, fragments: Map<string, FragmentDefinitionNode>, variables: Record<string, unknown>): Measure {
  let depth = 0;
  let cost = 0;
  const fieldMap = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields() : {};
  for (const field of fieldsOf(selectionSet, fragments)) {
    const definition = fieldMap[field.name.value];
    const child = definition ? getNamedType(definition.type) : undefined;
    const inner = field.selectionSet && child ? measure(field.selectionSet, child, fragments, variables) : { depth: 0, cost: 0 };
    depth = Math.max(depth, inner.depth + 1);
    cost += 1 + (definition ? multiplierOf(field, definition.type, parent, variables) : 1) * inner.cost;
  }
  return { depth, cost };
}

/** One validation rule for the depth and the estimated cost of each operation (spec-free limits, docs/member-graphql.md). */
export function depthAndCostRule(variables: Record<string, unknown>) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      const root = context.getSchema().getRootType(operation.operation);
      if (!root) return;
      const { depth, cost } = measure(operation.selectionSet, root, fragmentsOf(context), variables);
      if (depth > LIMITS.maxDepth) {
        context.reportError(new GraphQLError(`the query is nested ${depth} levels deep; the limit is ${LIMITS.maxDepth}`, { nodes: [operation], extensions: { code: 'QUERY_TOO_DEEP', depth, limit: LIMITS.maxDepth } }));
      }
      if (cost > LIMITS.maxCost) {
        context.reportError(new GraphQLError(`the query could resolve about ${cost} fields; the limit is ${LIMITS.maxCost}: ask for smaller pages or fewer fields`, { nodes: [operation], extensions: { code: 'QUERY_TOO_COSTLY', cost, limit: LIMITS.maxCost } }));
      }
    },
  });
}
