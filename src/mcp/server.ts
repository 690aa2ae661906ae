import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Variant } from '../config/config.js';
import { ToolContext, type McpCaller, type McpSession } from './session.js';
import { toolErrorResult, type McpTool } from './tool.js';
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

/**
 * A fresh MCP server for one /mcp request (stateless mode: nothing outlives the request). It carries the tools the
 * caller may use. A tool that exists but that the caller may not use is not listed; when this request calls one by
 * name, it is registered as a stand-in that answers the `insufficient_scope` tool error. Stand-ins are left out of a
 * request that also lists tools (a JSON-RPC batch), so a listing never shows them; such a call gets "not found".
 */
export function buildMcpServer(session: McpSession, calledTools: ReadonlySet<string>, listsTools: boolean): McpServer {
  const server = new McpServer({ name: SERVER_NAME, title: session.site.name, version: SERVER_VERSION }, { capabilities: { tools: {} }, instructions: instructions(session) });
  const context = new ToolContext(session);
  for (const tool of toolsOfVariant(session.services.config.variant)) {
    if (mayUse(session.caller, tool)) {
      tool.register(server, context);
    } else if (calledTools.has(tool.name) && !listsTools && tool.scope !== null) {
      const scope = tool.scope;
      const why = session.caller.authInfo === null ? 'no access token was presented' : session.caller.userId === null ? 'the access token is not bound to a member' : `the access token does not hold ${scope}`;
      server.registerTool(tool.name, { title: tool.title, description: tool.description }, () =>
        toolErrorResult('insufficient_scope', `${tool.name} needs a member access token with the scope ${scope}; ${why}. See ${session.site.origin}/auth.md.`, { scope }),
      );
    }
  }
  return server;
}
