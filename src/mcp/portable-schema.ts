import { z } from 'zod';

/**
 * JSON Schema as every MCP client reads it. zod writes a nullable value as `"type": ["string", "null"]`, a type array
 * that strict tool-schema checkers (the MCP Inspector's `--strict`) flag as unportable; `anyOf` with one branch per
 * type says the same thing in the form every client understands. Annotations (description, title, …) stay on the outer
 * schema; the other keywords go with each non-null branch.
 */
const ANNOTATIONS: ReadonlySet<string> = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

export function withoutTypeArrays<Schema>(schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map((item: unknown) => withoutTypeArrays(item)) as Schema;
  if (schema === null || typeof schema !== 'object') return schema;
  const rewritten: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) rewritten[key] = withoutTypeArrays(value);
  const types = rewritten.type;
  if (!Array.isArray(types)) return rewritten as Schema;
  const outer: Record<string, unknown> = {};
  const constraints: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rewritten)) {
    if (key === 'type') continue;
    (ANNOTATIONS.has(key) ? outer : constraints)[key] = value;
  }
  outer.anyOf = types.map((type: unknown) => (type === 'null' ? { type } : { type, ...constraints }));
  return outer as Schema;
}

/**
 * A tool's zod schema as JSON Schema, the way the SDK's McpServer publishes one (draft 2020-12, the `input` or
 * `output` side of transforms, an object root), in the portable form above. Called once per tool, at start-up.
 */
export function publishedJsonSchema(schema: z.ZodObject, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Record<string, unknown>;
  return withoutTypeArrays({ type: 'object', ...json });
}

/** Keywords a null value always passes: each constrains one other type (JSON Schema 2020-12, Validation 6, Core 10.3). */
const OTHER_TYPE_KEYWORDS: ReadonlySet<string> = new Set([
  'format', 'pattern', 'minLength', 'maxLength', 'contentEncoding', 'contentMediaType',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties',
  'items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems',
]);

/** `{"anyOf": [X, {"type": "null"}]}` (either order) with only annotations beside it: X, or null when it is not that. */
function nonNullBranch(schema: Record<string, unknown>): Record<string, unknown> | null {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2 || !Object.keys(schema).every((key) => key === 'anyOf' || ANNOTATIONS.has(key))) return null;
  const isNull = (branch: unknown) => typeof branch === 'object' && branch !== null && Object.keys(branch).length === 1 && (branch as Record<string, unknown>).type === 'null';
  const other: unknown = isNull(branches[1]) ? branches[0] : isNull(branches[0]) ? branches[1] : undefined;
  if (typeof other !== 'object' || other === null || Array.isArray(other)) return null;
  return other as Record<string, unknown>;
}

/**
 * The schema a tool's results are checked against: the published one with each `{"anyOf": [{"type": T, …}, {"type":
 * "null"}]}` checked as `{"type": [T, "null"], …}`. The two accept the same values when every other keyword of the
 * non-null branch is one a null value passes (tested here; other branches stay as they are). The check then tests
 * one type where the published form tries a branch, fails it and records the failure: a syllabus of 1,000 lectures
 * has 1,000 nullable unlock times.
 */
export function checkedJsonSchema<Schema>(schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map((item: unknown) => checkedJsonSchema(item)) as Schema;
  if (schema === null || typeof schema !== 'object') return schema;
  const rewritten: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) rewritten[key] = checkedJsonSchema(value);
  const branch = nonNullBranch(rewritten);
  if (branch === null || typeof branch.type !== 'string' || !Object.keys(branch).every((key) => key === 'type' || ANNOTATIONS.has(key) || OTHER_TYPE_KEYWORDS.has(key))) return rewritten as Schema;
  const { anyOf: _branches, ...annotations } = rewritten;
  return { ...branch, ...annotations, type: [branch.type, 'null'] } as Schema;
}
