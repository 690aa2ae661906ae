import type { IncomingHttpHeaders } from 'node:http';
import { SERVER_INFO_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult, type ReadResourceResult } from '@modelcontextprotocol/server';
import { accessTo } from './access.js';
import { resultJson } from './result-json.js';
import { MODERN_REVISION } from './revisions.js';
import { serverInfoOf, type McpCatalog } from './server.js';
import { ToolContext, type McpSession } from './session.js';

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const hasOnlyKeys = (value: Record<string, unknown>, allowed: readonly string[]): boolean => Object.keys(value).every((key) => allowed.includes(key));

/**
 * The protocol era of a request whose every part is plainly valid, or null when anything is unusual (the SDK then
 * answers it, with its own checks and errors). 2026-07-28: the `_meta` envelope with exactly the revision, the client's
 * capabilities and (optionally) its name and version, and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers saying the same as the body. 2025: no `_meta` at all, no 2026 headers, a revision header (if any) of that era,
 * and a client that takes a JSON answer.
 */
function plainEra(params: Record<string, unknown>, method: string, name: string, headers: IncomingHttpHeaders, prefersJson: boolean): 'modern' | 'legacy' | null {
  const meta = params._meta;
  const revision = headers['mcp-protocol-version'];
  if (meta === undefined) {
    if (!prefersJson || headers['mcp-method'] !== undefined || headers['mcp-name'] !== undefined) return null;
    return revision === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(revision as string) ? 'legacy' : null;
  }
  if (!isPlainObject(meta) || !hasOnlyKeys(meta, [PROTOCOL_VERSION, CLIENT_CAPABILITIES, CLIENT_INFO])) return null;
  if (meta[PROTOCOL_VERSION] !== MODERN_REVISION || !isPlainObject(meta[CLIENT_CAPABILITIES])) return null;
  const info = meta[CLIENT_INFO];
  if (info !== undefined && !(isPlainObject(info) && hasOnlyKeys(info, ['name', 'version']) && typeof info.name === 'string' && typeof info.version === 'string')) return null;
  if (revision !== MODERN_REVISION || headers['mcp-method'] !== method || headers['mcp-name'] !== name) return null;
  return 'modern';
}

/**
 * The common case of /mcp answered straight from the catalogue, without the SDK's per-request server, transport and
 * Web `Request`/`Response` (they cost about a sixth of a syllabus call): one `tools/call` of a tool the caller may use,
 * or one `resources/read` of a resource it may read, in a plainly valid request of either era from a client that takes
 * JSON. It answers exactly what the SDK would (the same JSON-RPC response and headers, which
 * test/mcp-direct-answer.test.ts compares for every tool and resource and for refused requests); anything else returns
 * null and goes to the SDK. A read that fails goes to the SDK too (reads change nothing, so running one again is
 * safe); a tool call cannot fail here (a tool reports its failures in its result).
 *
 * Returns the response body of a 200 `application/json`, or null.
 */
export async function answerDirectly(message: unknown, headers: IncomingHttpHeaders, prefersJson: boolean, catalog: McpCatalog, session: McpSession): Promise<string | null> {
  if (!isPlainObject(message) || !hasOnlyKeys(message, ['jsonrpc', 'id', 'method', 'params']) || message.jsonrpc !== '2.0') return null;
  const { id, method, params } = message;
  if (!(typeof id === 'string' || Number.isSafeInteger(id)) || !isPlainObject(params)) return null;
  const accept = headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null;

  let result: CallToolResult | ReadResourceResult;
  let era: 'modern' | 'legacy' | null;
  if (method === 'tools/call') {
    const { name, arguments: args } = params;
    if (typeof name !== 'string' || !hasOnlyKeys(params, ['name', 'arguments', '_meta']) || !(args === undefined || isPlainObject(args))) return null;
    era = plainEra(params, method, name, headers, prefersJson);
    const tool = catalog.toolNamed(name);
    if (era === null || tool === undefined || accessTo(session.caller, tool.scopes) !== 'granted') return null;
    result = await catalog.callTool(name, args, new ToolContext(session));
  } else if (method === 'resources/read') {
    const { uri } = params;
    if (typeof uri !== 'string' || !hasOnlyKeys(params, ['uri', '_meta'])) return null;
    era = plainEra(params, method, uri, headers, prefersJson);
    const found = catalog.findResource(uri, session.site);
    if (era === null || found === null || accessTo(session.caller, found.resource.scopes) !== 'granted') return null;
    try {
      result = await catalog.readResource(uri, new ToolContext(session), era === 'modern');
    } catch {
      return null;
    }
  } else {
    return null;
  }
  // 2026-07-28 results say they are complete and name the server (the revision's result envelope).
  const answered = era === 'modern' ? Object.assign({}, result, { resultType: 'complete', _meta: Object.assign({}, result._meta, { [SERVER_INFO_META_KEY]: serverInfoOf(session.site) }) }) : result;
  // As JSON.stringify({ result, jsonrpc, id }) would write it, with the structured JSON written once (src/mcp/result-json.ts).
  return `{"result":${resultJson(answered)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}
