import type { McpToolsFile, PublishedTool } from '../mcp-tools/published-tools.js';
import { VARIANT_NAMES } from '../../variant.js';
import type { ContractChange, Severity } from './changes.js';
import { schemaChanges } from './json-schema-changes.js';
import { MCP_TOOLS_FILE, UsageError, type ContractSources } from './sources.js';

/**
 * Changes of the MCP tools (generated/mcp-tools.json, written by `npm run codegen` from src/mcp/tools/), per variant
 * and reported once for the variants they appear in, as graphql.ts does for the member API:
 *
 * - a tool removed is breaking, a tool added safe;
 * - the input and output schemas are compared from the client's side (json-schema-changes.ts): a required input or a
 *   narrowed one breaks callers, an optional input is safe; an output property that was required and is gone or
 *   optional breaks readers, a new output property is safe;
 * - the scopes a tool needs (a caller needs all of them): breaking when a token that was enough before may not be any
 *   more, dangerous when the tool becomes public (review who may now call it), safe when fewer scopes are needed;
 * - titles, descriptions and annotations (hints to the model, MCP 2025-06-18 "Tool annotations") are safe and
 *   documentation only.
 *
 * Ids name the tool and the property path, never an array position: `mcp:TOOL_REMOVED:list_my_courses`,
 * `mcp:INPUT_PROPERTY_ADDED:list_my_courses.input.cursor`, `mcp:OUTPUT_PROPERTY_REMOVED:list_my_courses.output.courses[].slug`.
 */

type VariantChange = Omit<ContractChange, 'variants'>;

/** One side's tools, or null when that side has no generated/mcp-tools.json (a revision from before it existed). */
export function mcpToolsOf(sources: ContractSources): McpToolsFile | null {
  if (sources.mcpTools === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(sources.mcpTools);
  } catch (error) {
    throw new UsageError(`${MCP_TOOLS_FILE} of ${sources.label} is not JSON: ${error instanceof Error ? error.message : String(error)}; run npm run codegen`);
  }
  const variants = (parsed as { variants?: unknown } | null)?.variants;
  if (typeof variants !== 'object' || variants === null || Object.values(variants).some((tools) => !Array.isArray(tools) || tools.some((tool) => typeof (tool as { name?: unknown } | null)?.name !== 'string'))) {
    throw new UsageError(`${MCP_TOOLS_FILE} of ${sources.label} is not a list of tools per variant; run npm run codegen`);
  }
  return parsed as McpToolsFile;
}

function scopeChange(name: string, before: readonly string[], after: readonly string[]): VariantChange | null {
  if (before.length === after.length && before.every((scope) => after.includes(scope))) return null;
  const list = (scopes: readonly string[]) => (scopes.length === 0 ? 'no scope (public)' : scopes.map((scope) => `\`${scope}\``).join(' and '));
  // Every scope is needed: a token that called the tool before still may only when no new scope is asked for.
  // Becoming public loosens access: a reviewer decides whether anonymous callers may have it.
  const severity: Severity = after.length === 0 ? 'dangerous' : after.every((scope) => before.includes(scope)) ? 'safe' : 'breaking';
  return { api: 'mcp', id: `mcp:SCOPE_CHANGED:${name}`, severity, where: name, message: `The scopes tool \`${name}\` needs changed from ${list(before)} to ${list(after)}.` };
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

function toolChanges(before: PublishedTool, after: PublishedTool): VariantChange[] {
  const name = after.name;
  const found: VariantChange[] = [];
  const documentation = (kind: string, what: string) => found.push({ api: 'mcp', id: `mcp:${kind}:${name}`, severity: 'safe', where: name, message: `The ${what} of tool \`${name}\` changed.`, documentationOnly: true });
  if (before.title !== after.title) documentation('TOOL_TITLE_CHANGED', 'title');
  if (before.description !== after.description) documentation('TOOL_DESCRIPTION_CHANGED', 'description');
  // annotations.title repeats the title (src/mcp/tool.ts): a new title is one change, not two.
  const { title: _titleBefore, ...annotationsBefore } = before.annotations;
  const { title: _titleAfter, ...annotationsAfter } = after.annotations;
  if (json(annotationsBefore) !== json(annotationsAfter)) documentation('TOOL_ANNOTATIONS_CHANGED', 'annotations');
  const scopes = scopeChange(name, before.scopes, after.scopes);
  if (scopes) found.push(scopes);
  const rows = schemaChanges(before.inputSchema, after.inputSchema, 'input', `${name}.input`);
  if (before.outputSchema !== null && after.outputSchema !== null) rows.push(...schemaChanges(before.outputSchema, after.outputSchema, 'output', `${name}.output`));
  else if (before.outputSchema !== null) rows.push({ kind: 'OUTPUT_SCHEMA_REMOVED', where: `${name}.output`, severity: 'breaking', message: `Tool \`${name}\` no longer promises structured results (its output schema was removed).` });
  else if (after.outputSchema !== null) rows.push({ kind: 'OUTPUT_SCHEMA_ADDED', where: `${name}.output`, severity: 'safe', message: `Tool \`${name}\` now returns structured results with an output schema.` });
  for (const row of rows) {
    found.push({ api: 'mcp', id: `mcp:${row.kind}:${row.where}`, severity: row.severity, where: row.where, message: row.message, ...(row.documentationOnly ? { documentationOnly: true } : {}) });
  }
  return found;
}

function variantChanges(before: readonly PublishedTool[], after: readonly PublishedTool[]): VariantChange[] {
  const toolsAfter = new Map(after.map((tool) => [tool.name, tool]));
  const namesBefore = new Set(before.map((tool) => tool.name));
  const found: VariantChange[] = [];
  // Whether a client still calls the tool decides whether a change to it hurts anyone (the usage counts name tools).
  const ofTool = (name: string, changes: VariantChange[]) => found.push(...changes.map((change) => ({ ...change, elements: [{ api: 'mcp' as const, name }] })));
  for (const tool of before) {
    const now = toolsAfter.get(tool.name);
    if (now === undefined) ofTool(tool.name, [{ api: 'mcp', id: `mcp:TOOL_REMOVED:${tool.name}`, severity: 'breaking', where: tool.name, message: `The tool \`${tool.name}\` was removed.` }]);
    else ofTool(tool.name, toolChanges(tool, now));
  }
  for (const tool of after.filter((candidate) => !namesBefore.has(candidate.name))) {
    ofTool(tool.name, [{ api: 'mcp', id: `mcp:TOOL_ADDED:${tool.name}`, severity: 'safe', where: tool.name, message: `New tool \`${tool.name}\`: ${tool.title}.` }]);
  }
  return found;
}

/** The changes of the MCP tools from `base` to `head`; none when either side has no tools file. */
export function mcpChanges(base: ContractSources, head: ContractSources): ContractChange[] {
  const before = mcpToolsOf(base);
  const after = mcpToolsOf(head);
  if (before === null || after === null) return [];
  const byId = new Map<string, ContractChange>();
  for (const variant of VARIANT_NAMES) {
    const toolsBefore = before.variants[variant];
    const toolsAfter = after.variants[variant];
    if (toolsBefore === undefined || toolsAfter === undefined) continue;
    for (const change of variantChanges(toolsBefore, toolsAfter)) {
      const known = byId.get(change.id);
      if (known) known.variants?.push(variant);
      else byId.set(change.id, { ...change, variants: [variant] });
    }
  }
  return [...byId.values()];
}
