import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Variant } from '../config/config.js';
import { ToolContext, type McpCaller, type McpSession } from './session.js';
import { sharedValidators, toolErrorResult, type McpTool } from './tool.js';
import { ALL_TOOLS, PUBLIC_TOOLS } from './tools/index.js';

export const SERVER_NAME = 'schoolgate';
export const SERVER_VERSION = '0.1.0';

/** Tools that exist in a variant (variant A's member fields exist only there). */
export function toolsOfVariant(variant: Variant): McpTool[] {
  return ALL_TOOLS.filter((tool) => tool.variants.includes(variant));
}

/** Whether the caller may use a tool: public tools for everyone; a user-bound tool for a member token holding its scope. */
export function mayUse(caller: McpCaller, tool: McpTool): boolean {
  return tool.scope === null || (caller.userId !== null && caller.scopes.includes(tool.scope));
}

/**
 * The tools of one variant, built once when the endpoint is created: their definitions (JSON Schema included) and their
 * zod validators are shared by every request. Nothing in it knows about a request; each request brings its own
 * session (caller, site, clock, logger) to `serverFor`.
 */
export class McpToolset {
  readonly variant: Variant;
  readonly tools: readonly McpTool[];
  private readonly byName: ReadonlyMap<string, McpTool>;
  /** The `tools/list` answer of an anonymous caller (public tools), shared as is. */
  private readonly publicDefinitions: readonly Tool[];
  /** One Ajv instance for the process: it compiles the tools' output checks here, and the SDK server gets it too. */
  private readonly jsonSchemaValidator = sharedValidators();

  constructor(variant: Variant) {
    this.variant = variant;
    this.tools = toolsOfVariant(variant);
    this.byName = new Map(this.tools.map((tool) => [tool.name, tool]));
    this.publicDefinitions = this.tools.filter((tool) => tool.scope === null).map((tool) => tool.definition);
    for (const tool of this.tools) tool.compile(this.jsonSchemaValidator);
  }

  /** The scope a user-bound tool of this variant needs; null for a public tool or a name no tool has. */
  memberScopeOf(name: string): string | null {
    return this.byName.get(name)?.scope ?? null;
  }

  /** The definitions `tools/list` shows this caller, in registry order. */
  definitionsFor(caller: McpCaller): readonly Tool[] {
    if (caller.userId === null) return this.publicDefinitions;
    return this.tools.filter((tool) => mayUse(caller, tool)).map((tool) => tool.definition);
  }

  /** One `tools/call`, counted by tool (unknown names in one bucket) and outcome. */
  async call(name: string, args: unknown, context: ToolContext): Promise<CallToolResult> {
    const result = await this.callTool(name, args, context);
    context.session.services.metrics.mcpToolCalls.inc({ tool: this.byName.has(name) ? name : '(unknown)', outcome: result.isError ? 'error' : 'ok' });
    return result;
  }

  /** The tool's result, or a tool error for an unknown tool or one the caller may not use. */
  private async callTool(name: string, args: unknown, context: ToolContext): Promise<CallToolResult> {
    const tool = this.byName.get(name);
    if (!tool) return toolErrorResult('not_found', `Tool ${name} not found; tools/list lists the tools this connection may use`);
    const { session } = context;
    if (!mayUse(session.caller, tool)) {
      const scope = tool.scope ?? '';
      const why = session.caller.authInfo === null ? 'no access token was presented' : session.caller.userId === null ? 'the access token is not bound to a member' : `the access token does not hold ${scope}`;
      return toolErrorResult('insufficient_scope', `${tool.name} needs a member access token with the scope ${scope}; ${why}. See ${session.site.origin}/auth.md.`, { scope });
    }
    return tool.call(args, context);
  }

  /**
   * The MCP server of one request. The SDK's server object holds one connection's state (its transport, the ids of
   * requests in flight), so each stateless request gets its own; it is a thin shell whose two tool handlers close
   * over this request's context and delegate to the shared tools. Nothing of one request can reach another's.
   */
  serverFor(session: McpSession): Server {
    const server = new Server(
      { name: SERVER_NAME, title: session.site.name, version: SERVER_VERSION },
      { capabilities: { tools: {} }, instructions: instructions(session), jsonSchemaValidator: this.jsonSchemaValidator },
    );
    const context = new ToolContext(session);
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...this.definitionsFor(session.caller)] }));
    server.setRequestHandler(CallToolRequestSchema, (request) => this.call(request.params.name, request.params.arguments, context));
    return server;
  }
}

function instructions(session: McpSession): string {
  const { site } = session;
  const member = session.caller.userId !== null;
  return [
    `Tools of ${site.name} (${site.origin}), an online-course school.`,
    `Public tools (${PUBLIC_TOOLS.map((tool) => tool.name).join(', ')}) describe what the school offers to anyone.`,
    member
      ? 'This connection acts for a signed-in member: the list_my_* and get_my_* tools read their own courses, progress and account; tools needing a scope the token lacks are not listed.'
      : `Tools about a member's own courses, meetings, payments and notifications need a member access token (OAuth 2.0 with PKCE); ${site.origin}/auth.md explains how to get one.`,
  ].join(' ');
}
