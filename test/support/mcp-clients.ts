import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * Real MCP clients for /mcp, one per protocol era:
 *
 * - `2025-11-25`: the SDK's v1 client (`@modelcontextprotocol/sdk`), the `initialize` handshake, as most clients in
 *   use today speak it;
 * - `2026-07-28`: the SDK's v2 client (`@modelcontextprotocol/client`) pinned to that revision: `server/discover`,
 *   then every request with the `_meta` envelope and the `Mcp-Method`/`Mcp-Name` headers.
 *
 * Both expose the same calls the tests use (listTools, callTool, listResources, readResource, listPrompts, getPrompt,
 * complete, close).
 */
export const MCP_ERAS = ['2025-11-25', '2026-07-28'] as const;
export type McpEra = (typeof MCP_ERAS)[number];

export type AnyMcpClient = LegacyClient | ModernClient;

export async function connectMcp(origin: string, era: McpEra, token?: string): Promise<AnyMcpClient> {
  const url = new URL(`${origin}/mcp`);
  const requestInit = token === undefined ? undefined : { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
  if (era === '2025-11-25') {
    const client = new LegacyClient({ name: 'schoolgate-test', version: '1.0.0' });
    await client.connect(new LegacyTransport(url, requestInit));
    return client;
  }
  const client = new ModernClient({ name: 'schoolgate-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(url, requestInit));
  return client;
}

export async function withMcpClient<T>(origin: string, era: McpEra, token: string | undefined, use: (client: AnyMcpClient) => Promise<T>): Promise<T> {
  const client = await connectMcp(origin, era, token);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** The headers of a raw 2026-07-28 POST for `method` (and `name`: a tool's, a prompt's, a resource's URI). */
export function modernHeaders(method: string, name?: string, token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
}

/** The `_meta` envelope every 2026-07-28 request carries. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'schoolgate-test', version: '1.0.0' },
} as const;

/** A raw 2026-07-28 JSON-RPC POST: the envelope added to `params`, the headers to match. */
export async function postModern(origin: string, id: number | string, method: string, params: Record<string, unknown> = {}, options: { token?: string; name?: string } = {}): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: modernHeaders(method, options.name, options.token),
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: MODERN_META } }),
  });
}

/** One course as `list_my_courses` returns it (and the member resources that hold its JSON). */
export interface McpCourse {
  id: string;
  slug: string;
  title: string;
  hasLifetimeAccess: boolean;
  expireDate: string | null;
  accessEnded: boolean;
  progress: Record<string, number>;
  lastWatchedLecture: { lectureId: string; positionSeconds: number } | null;
}
