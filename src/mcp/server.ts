import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type Server,
  type CacheHint,
  type CallToolResult,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type Implementation,
  type ListResourcesResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Scope } from '../clients/scopes.js';
import type { Site } from '../sites/sites.js';
import { accessTo, isListedFor, refusalReason } from './access.js';
import { guarded } from './handler-errors.js';
import { MODERN_REVISION } from './revisions.js';
import { SchoolServer } from './school-server.js';
import { hasMemberFeatures, type VariantProfile } from '../variant.js';
import { PromptArgumentError, type McpPrompt } from './prompt.js';
import { PROMPTS } from './prompts/index.js';
import { resourceAuthority, ResourceUnavailableError, type McpResource } from './resource.js';
import { RESOURCES } from './resources/index.js';
import { ToolContext, type McpCaller, type McpSession } from './session.js';
import { sharedValidators, toolErrorResult, type McpTool } from './tool.js';
import { ALL_TOOLS, PUBLIC_TOOLS } from './tools/index.js';
import { elementBundle, recordUse, type UsageBundle } from '../usage/tally.js';

export const SERVER_NAME = 'schoolgate';
export const SERVER_VERSION = '0.2.0';

/** Items per page of `resources/list`. */
export const RESOURCE_PAGE_SIZE = 50;
/** Values per `completion/complete` answer (the MCP limit). */
const MAX_COMPLETIONS = 100;

/** How the server names itself at a school (`initialize`, `server/discover`, the 2026-07-28 `_meta` of results). */
export function serverInfoOf(site: Site): Implementation {
  return { name: SERVER_NAME, title: site.name, version: SERVER_VERSION, websiteUrl: site.origin };
}

/** Tools that exist in a deployment (those over member features it does not have are left out). */
export function toolsOfVariant(variant: VariantProfile): McpTool[] {
  return ALL_TOOLS.filter((tool) => hasMemberFeatures(variant, tool));
}

/** Resources and resource templates that exist in a deployment, in registry order. */
export function resourcesOfVariant(variant: VariantProfile): McpResource[] {
  return RESOURCES.filter((resource) => hasMemberFeatures(variant, resource.spec));
}

/** Prompts that exist in a deployment, in registry order. */
export function promptsOfVariant(variant: VariantProfile): McpPrompt[] {
  return PROMPTS.filter((prompt) => hasMemberFeatures(variant, prompt.spec));
}

/** The operation a JSON-RPC request asks for, and the scopes it needs; null for one that needs none (lists, ping). */
export interface Operation {
  /** How the error messages name it: `tool mark_notification_read`, `resource school://…/me/courses`. */
  label: string;
  scopes: readonly Scope[];
}

/**
 * Everything `/mcp` offers in one deployment: tools, resources and resource templates, prompts. Built once when the
 * endpoint is created (definitions, JSON Schemas, validators); nothing in it knows about a request. Each request
 * brings its own session (caller, site, clock, logger) to `serverFor`.
 */
export class McpCatalog {
  readonly variant: VariantProfile;
  readonly tools: readonly McpTool[];
  readonly resources: readonly McpResource[];
  readonly prompts: readonly McpPrompt[];
  private readonly toolsByName: ReadonlyMap<string, McpTool>;
  /** Each tool's usage count key (docs/usage.md). */
  private readonly toolUsage: ReadonlyMap<McpTool, UsageBundle>;
  private readonly promptsByName: ReadonlyMap<string, McpPrompt>;
  /** The `tools/list` answer of an anonymous caller (public tools), shared as is. */
  private readonly publicToolDefinitions: readonly Tool[];
  private readonly jsonSchemaValidator = sharedValidators();

  constructor(variant: VariantProfile) {
    this.variant = variant;
    this.tools = toolsOfVariant(variant);
    this.resources = resourcesOfVariant(variant);
    this.prompts = promptsOfVariant(variant);
    this.toolsByName = new Map(this.tools.map((tool) => [tool.name, tool]));
    this.toolUsage = new Map(this.tools.map((tool) => [tool, elementBundle('mcp', tool.name)]));
    this.promptsByName = new Map(this.prompts.map((prompt) => [prompt.spec.name, prompt]));
    this.publicToolDefinitions = this.tools.filter((tool) => tool.scopes.length === 0).map((tool) => tool.definition);
    for (const tool of this.tools) tool.compile(this.jsonSchemaValidator);
  }

  /**
   * What a request asks for that needs scopes: a member tool, resource or prompt (or a completion of a member
   * prompt's or template's argument). Null for everything anyone may do; an unknown name or URI is left to the handler,
   * which answers it as unknown.
   */
  operationOf(method: unknown, params: unknown, site: Site): Operation | null {
    const p = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
    const scoped = (label: string, scopes: readonly Scope[] | undefined): Operation | null => (scopes === undefined || scopes.length === 0 ? null : { label, scopes });
    switch (method) {
      case 'tools/call':
        return typeof p.name === 'string' ? scoped(`tool ${p.name}`, this.toolsByName.get(p.name)?.scopes) : null;
      case 'prompts/get':
        return typeof p.name === 'string' ? scoped(`prompt ${p.name}`, this.promptsByName.get(p.name)?.scopes) : null;
      case 'resources/read': {
        if (typeof p.uri !== 'string') return null;
        const found = this.findResource(p.uri, site);
        return found === null ? null : scoped(`resource ${p.uri}`, found.resource.scopes);
      }
      case 'completion/complete': {
        const ref = (typeof p.ref === 'object' && p.ref !== null ? p.ref : {}) as Record<string, unknown>;
        if (ref.type === 'ref/prompt' && typeof ref.name === 'string') return scoped(`prompt ${ref.name}`, this.promptsByName.get(ref.name)?.scopes);
        if (ref.type === 'ref/resource' && typeof ref.uri === 'string') return scoped(`resource template ${ref.uri}`, this.templateAt(ref.uri, site)?.scopes);
        return null;
      }
      default:
        return null;
    }
  }

  /** The deployment's tool of that name. */
  toolNamed(name: string): McpTool | undefined {
    return this.toolsByName.get(name);
  }

  /** The tool definitions `tools/list` shows the caller, in registry order. */
  toolDefinitionsFor(caller: McpCaller, site: Site): readonly Tool[] {
    if (caller.authInfo === null) return this.publicToolDefinitions;
    // A member tool's definition may name the school (the ui:// URI of its view): the site's own copy.
    return this.tools.filter((tool) => isListedFor(caller, tool.scopes)).map((tool) => tool.definitionFor(site));
  }

  /**
   * One `tools/call`, counted by tool (unknown names in one bucket) and outcome. A tool this variant does not have is
   * a protocol error, JSON-RPC -32602 naming it (the MCP tools spec, "Error Handling": unknown tools are protocol
   * errors; what goes wrong inside a tool is a tool error the model can read).
   */
  async callTool(name: string, args: unknown, context: ToolContext): Promise<CallToolResult> {
    const tool = this.toolsByName.get(name);
    if (!tool) {
      context.session.services.metrics.mcpToolCalls.inc({ tool: '(unknown)', outcome: 'error' });
      const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${shown}; tools/list lists the tools of this school`, { name: shown });
    }
    const result = await this.runTool(tool, args, context);
    context.session.services.metrics.mcpToolCalls.inc({ tool: name, outcome: result.isError ? 'error' : 'ok' });
    return result;
  }

  private async runTool(tool: McpTool, args: unknown, context: ToolContext): Promise<CallToolResult> {
    const { session } = context;
    // Callers who could get the scopes were answered 401/403 before the server (src/mcp/endpoint.ts); what is left
    // here is a token that can never hold them.
    if (accessTo(session.caller, tool.scopes) !== 'granted') {
      return toolErrorResult('insufficient_scope', `${tool.name} needs a member access token with the scope ${tool.scopes.join(' ')}; ${refusalReason(session.caller, tool.scopes)}. See ${session.site.origin}/auth.md.`, { scope: tool.scopes.join(' ') });
    }
    // A call the tool runs is a use, whatever it answers (its failures are results); a refused one above is not.
    // Counted in memory for the caller's client (0: anonymous); the usage flush job writes it. Both the SDK and the
    // direct answers (src/mcp/direct-answer.ts) come through here.
    recordUse(session.services.db, session.site.id, session.caller.clientRef, this.toolUsage.get(tool) as UsageBundle);
    return tool.call(args, context);
  }

  /** The resource (fixed or template) a URI names at this site, with the template's values; null when none does. */
  findResource(uri: string, site: Site): { resource: McpResource; params: Record<string, string> } | null {
    let parsed: URL;
    try {
      parsed = new URL(uri);
    } catch {
      return null;
    }
    if (parsed.host !== resourceAuthority(site) || parsed.search !== '' || parsed.hash !== '') return null;
    let segments: string[];
    try {
      segments = parsed.pathname.split('/').slice(1).map((segment) => decodeURIComponent(segment));
    } catch {
      return null;
    }
    const scheme = parsed.protocol.slice(0, -1);
    for (const resource of this.resources) {
      const params = resource.match(scheme, segments);
      if (params !== null) return { resource, params };
    }
    return null;
  }

  private templateAt(uriTemplate: string, site: Site): McpResource | undefined {
    return this.resources.find((resource) => resource.isTemplate && resource.uriTemplate(site) === uriTemplate);
  }

  /** `resources/list`: the fixed resources the caller may see, then what each template stands for, paged. */
  async listResources(context: ToolContext, cursor: string | undefined): Promise<ListResourcesResult> {
    const { caller } = context.session;
    // Fixed resources first, then what the templates stand for: the first page shows every fixed resource.
    const visible = this.resources.filter((resource) => isListedFor(caller, resource.scopes));
    const listed = [...visible.filter((resource) => !resource.isTemplate), ...visible.filter((resource) => resource.isTemplate)];
    let position = cursor === undefined ? { index: 0, after: null as string | null } : decodeListCursor(cursor);
    const items: Resource[] = [];
    while (position.index < listed.length && items.length < RESOURCE_PAGE_SIZE) {
      const resource = listed[position.index] as McpResource;
      if (!resource.isTemplate) {
        items.push(resource.listing(context.site));
        position = { index: position.index + 1, after: null };
        continue;
      }
      const instances = resource.spec.instances;
      if (instances === undefined || accessTo(caller, resource.scopes) !== 'granted') {
        position = { index: position.index + 1, after: null };
        continue;
      }
      const page = await instances.call(resource.spec, context, position.after, RESOURCE_PAGE_SIZE - items.length);
      items.push(...page.items.map((instance) => resource.listing(context.site, instance)));
      position = page.next === null ? { index: position.index + 1, after: null } : { index: position.index, after: page.next };
    }
    return position.index < listed.length ? { resources: items, nextCursor: encodeListCursor(position) } : { resources: items };
  }

  /**
   * `resources/read`: the resource's contents, or -32602 naming the URI for one this school does not have. With
   * `cacheHint` (an answer on the 2026-07-28 revision) it says how long the client may reuse it (`ttlMs`, the
   * resource's own) and who may (`cacheScope`: `public` for what anyone may read, `private` for a member's own data).
   */
  async readResource(uri: string, context: ToolContext, cacheHint = false): Promise<ReadResourceResult> {
    const { site, caller } = context.session;
    const found = this.findResource(uri, site);
    if (found === null) throw new ResourceNotFoundError(uri, unknownResourceMessage(uri, site));
    const { resource, params } = found;
    if (accessTo(caller, resource.scopes) !== 'granted') {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Resource ${uri} needs a member access token with the scope ${resource.scopes.join(' ')}; ${refusalReason(caller, resource.scopes)}. See ${site.origin}/auth.md.`, {
        uri,
        error: 'insufficient_scope',
        scope: resource.scopes.join(' '),
      });
    }
    try {
      const contents = await resource.spec.read(context, uri, params);
      const cache: CacheHint = cacheHint ? { ttlMs: resource.spec.ttlMs, cacheScope: resource.scopes.length === 0 ? 'public' : 'private' } : {};
      return { contents, ...cache, ...(resource.spec._meta === undefined ? {} : { _meta: resource.spec._meta }) };
    } catch (error) {
      if (error instanceof ResourceUnavailableError) throw new ResourceNotFoundError(uri, `Resource ${uri} not found: ${error.message}`);
      throw error;
    }
  }

  /** `prompts/get`: the prompt's messages for valid arguments; -32602 for an unknown prompt or bad arguments. */
  async getPrompt(name: string, args: Readonly<Record<string, string>>, context: ToolContext): Promise<GetPromptResult> {
    const prompt = this.promptsByName.get(name);
    const { caller, site } = context.session;
    if (prompt === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} not found; prompts/list lists the prompts of this school`, { name });
    if (accessTo(caller, prompt.scopes) !== 'granted') {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Prompt ${name} needs a member access token with the scope ${prompt.scopes.join(' ')}; ${refusalReason(caller, prompt.scopes)}. See ${site.origin}/auth.md.`, {
        error: 'insufficient_scope',
        scope: prompt.scopes.join(' '),
      });
    }
    const problems = prompt.problemsWith(args);
    if (problems.length > 0) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${problems.join('; ')}`, { problems });
    try {
      return await prompt.spec.get(context, args);
    } catch (error) {
      if (error instanceof PromptArgumentError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${error.message}`);
      throw error;
    }
  }

  /**
   * `completion/complete`: values for a prompt's or a resource template's argument. A reference this school does not
   * have, or an argument without suggestions, gets no values rather than an error: a client asks while someone types.
   */
  async complete(params: CompleteRequest['params'], context: ToolContext): Promise<CompleteResult> {
    const { ref, argument } = params;
    const prefix = argument.value;
    const others = params.context?.arguments ?? {};
    let values: string[] = [];
    if (ref.type === 'ref/prompt') {
      const prompt = this.promptsByName.get(ref.name);
      const complete = prompt?.argument(argument.name)?.complete;
      if (prompt !== undefined && complete !== undefined && accessTo(context.session.caller, prompt.scopes) === 'granted') values = await complete(context, prefix, others);
    } else {
      const template = this.templateAt(ref.uri, context.site);
      if (template?.spec.complete !== undefined && accessTo(context.session.caller, template.scopes) === 'granted') values = await template.spec.complete(context, argument.name, prefix);
    }
    return { completion: { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: values.length > MAX_COMPLETIONS } };
  }

  /** The prompts `prompts/list` shows the caller. */
  promptDefinitionsFor(caller: McpCaller): Prompt[] {
    return this.prompts.filter((prompt) => isListedFor(caller, prompt.scopes)).map((prompt) => prompt.definition);
  }

  /**
   * The MCP server of one request. The SDK's server object holds one exchange's protocol state (its transport, the
   * ids of requests in flight, the protocol era), so each request gets its own: a thin shell whose handlers close over
   * this request's context and delegate to the shared catalogue. Nothing of one request can reach another's.
   */
  serverFor(session: McpSession): Server {
    const listHint: CacheHint = session.caller.authInfo === null ? { ttlMs: 10 * 60_000, cacheScope: 'public' } : { ttlMs: 10 * 60_000, cacheScope: 'private' };
    const server = new SchoolServer(
      serverInfoOf(session.site),
      {
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false }, completions: {} },
        instructions: instructions(session, this),
        jsonSchemaValidator: this.jsonSchemaValidator,
        cacheHints: {
          'server/discover': listHint,
          'tools/list': listHint,
          'prompts/list': listHint,
          'resources/templates/list': listHint,
          // Lists what the member is enrolled in: short-lived.
          'resources/list': { ttlMs: 60_000, cacheScope: listHint.cacheScope },
        },
      },
    );
    const context = new ToolContext(session);
    const handle = guarded(session);
    server.setRequestHandler('tools/list', () => ({ tools: [...this.toolDefinitionsFor(session.caller, session.site)] }));
    server.setRequestHandler('tools/call', (request) => this.callTool(request.params.name, request.params.arguments, context));
    server.setRequestHandler('resources/list', handle((request) => this.listResources(context, request.params?.cursor)));
    server.setRequestHandler('resources/templates/list', () => ({
      resourceTemplates: this.resources.filter((resource) => resource.isTemplate && isListedFor(session.caller, resource.scopes)).map((resource) => resource.templateListing(session.site)),
    }));
    const read = handle((uri: string) => this.readResource(uri, context, servesModernEra(server)));
    server.setRequestHandler('resources/read', (request) => read(request.params.uri));
    server.setRequestHandler('prompts/list', () => ({ prompts: this.promptDefinitionsFor(session.caller) }));
    server.setRequestHandler('prompts/get', handle((request) => this.getPrompt(request.params.name, request.params.arguments ?? {}, context)));
    server.setRequestHandler('completion/complete', handle((request) => this.complete(request.params, context)));
    return server;
  }
}

/**
 * Whether a server answers on the 2026-07-28 revision, whose cacheable results carry `ttlMs`/`cacheScope`. The SDK
 * passes a result's own fields through unchanged on the 2025 era, whose results have no such fields, so they are added
 * only here. The served era is the instance's (the SDK's wire codec is chosen by it), not the request's `_meta`: a
 * 2025-era request may carry stray `io.modelcontextprotocol/*` keys and is still answered on its era.
 */
function servesModernEra(server: Server): boolean {
  // Deprecated in favour of the request's envelope, which does not decide the encoding (see above).
  const version = server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= MODERN_REVISION;
}


function unknownResourceMessage(uri: string, site: Site): string {
  let host: string | null = null;
  try {
    host = new URL(uri).host;
  } catch {
    return `Resource ${uri} not found: not a URI`;
  }
  const authority = resourceAuthority(site);
  if (host !== authority) return `Resource ${uri} not found: it names ${host === '' ? 'no school' : `the host ${host}`}, and this is the school at ${authority}; resources/list lists this school's resources`;
  return `Resource ${uri} not found; resources/list and resources/templates/list list this school's resources`;
}

/** The `resources/list` cursor: which resource of the list, and where in a template's instances. Opaque to clients. */
function encodeListCursor(position: { index: number; after: string | null }): string {
  return Buffer.from(JSON.stringify([position.index, position.after])).toString('base64url');
}

function decodeListCursor(cursor: string): { index: number; after: string | null } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && (value[0] as number) >= 0 && (value[1] === null || typeof value[1] === 'string')) {
      return { index: value[0] as number, after: value[1] as string | null };
    }
  } catch {
    // answered below
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: pass the nextCursor of the previous resources/list answer unchanged', { cursor });
}

function instructions(session: McpSession, catalog: McpCatalog): string {
  const { site } = session;
  const member = session.caller.userId !== null;
  return [
    `Tools, resources and prompts of ${site.name} (${site.origin}), an online-course school.`,
    `Public tools (${PUBLIC_TOOLS.filter((tool) => catalog.tools.includes(tool))
      .map((tool) => tool.name)
      .join(', ')}) and resources describe what the school offers to anyone.`,
    member
      ? "This connection acts for a signed-in member: the list_my_* and get_my_* tools, the school://…/me/ resources and the prompts read the member's own courses, progress and account. An operation needing a scope the token lacks answers HTTP 403 insufficient_scope with the scopes to ask for."
      : `Tools, resources and prompts about a member's own courses, meetings, payments and notifications need a member access token (OAuth 2.0 with PKCE); ${site.origin}/auth.md explains how to get one.`,
  ].join(' ');
}
