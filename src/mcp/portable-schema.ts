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
