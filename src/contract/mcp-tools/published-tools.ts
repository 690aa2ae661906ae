import type { Tool } from '@modelcontextprotocol/server';
import { toolsOfVariant } from '../../mcp/server.js';
import { VARIANT_PROFILES, type Variant } from '../../variant.js';

/**
 * The MCP tools as a committed contract artefact, `generated/mcp-tools.json`: per variant, every tool as `tools/list`
 * shows it (name, title, description, both JSON Schemas, annotations) and the scopes a caller needs to call it. The
 * tools are defined in TypeScript (src/mcp/tools/), which a git revision cannot be asked about without running it;
 * this file is what the contract diff and the changelog read at each revision (docs/contract-workflow.md).
 */

export interface PublishedTool {
  name: string;
  title: string;
  description: string;
  /** Every scope a caller needs (all of them); empty for a public tool. */
  scopes: string[];
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  annotations: Record<string, unknown>;
}

export interface McpToolsFile {
  /** Per variant name, the tools in the order `tools/list` lists them. */
  variants: Partial<Record<Variant, PublishedTool[]>>;
}

function publishedTool(definition: Tool, scopes: readonly string[]): PublishedTool {
  return {
    name: definition.name,
    title: definition.title ?? definition.name,
    description: definition.description ?? '',
    scopes: [...scopes],
    inputSchema: definition.inputSchema as Record<string, unknown>,
    outputSchema: (definition.outputSchema as Record<string, unknown> | undefined) ?? null,
    annotations: (definition.annotations as Record<string, unknown> | undefined) ?? {},
  };
}

/** The artefact of the tools this code defines: needs no database and no server (the definitions are built at import). */
export function currentMcpTools(): McpToolsFile {
  const variants: McpToolsFile['variants'] = {};
  for (const profile of VARIANT_PROFILES) variants[profile.name] = toolsOfVariant(profile).map((tool) => publishedTool(tool.definition, tool.scopes));
  return { variants };
}

/** The text written to generated/mcp-tools.json: two-space JSON and a final newline, the same bytes on every machine. */
export function mcpToolsText(file: McpToolsFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}
