import type { CallToolResult, JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator, Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { z } from 'zod';
import type { Scope } from '../clients/scopes.js';
import { ValidationError } from '../shared/errors.js';
import { classifyFailure, isRetryable } from '../shared/failure.js';
import type { Site } from '../sites/sites.js';
import { checkedJsonSchema, publishedJsonSchema } from './portable-schema.js';
import { structuredText } from './result-json.js';
import type { ToolContext } from './session.js';
import type { MemberFeature } from '../variant.js';

/**
 * One MCP tool: its name, description, typed input and output (zod, published as JSON Schema by the SDK), the scope
 * a caller needs (null: public), the member features it reads, and what it does. Results carry `structuredContent`
 * (checked against the output schema before it leaves) and the same JSON as text for clients that read only text.
 */
export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** Every scope a caller needs; none for a public tool that anonymous callers get too. */
  scopes: readonly Scope[];
  /** The member features the tool reads or writes (default none): it exists only where the deployment has them. */
  needs?: readonly MemberFeature[];
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /**
   * Extension metadata of the definition, e.g. the interactive view an MCP Apps host shows with the result. A function
   * of the site when a value names the school (a view's `ui://{host}/…` URI): `definitionFor` builds it once per site.
   */
  _meta?: Tool['_meta'] | ((site: Site) => Tool['_meta']);
  run(input: z.output<I>, context: ToolContext): Promise<z.input<O>>;
}

export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly scopes: readonly Scope[];
  readonly needs: readonly MemberFeature[];
  /**
   * What `tools/list` shows: name, title, description, annotations and both schemas as JSON Schema, built once; with
   * the `_meta` only when it is the same at every site (see `definitionFor`).
   */
  readonly definition: Tool;
  /** The definition as `tools/list` shows it at a site: `definition` itself unless `_meta` depends on the site. */
  definitionFor(site: Site): Tool;
  /**
   * Compiles the check of results against the published output schema (JSON Schema, the one clients check too) with
   * the given provider. Called once when a variant's toolset is built; `call` compiles it on first use otherwise.
   */
  compile(validators: jsonSchemaValidator): void;
  /**
   * Runs the tool for one request: checks the arguments against the input schema, runs it with the request's context
   * and checks the result against the output schema. Everything per request lives in `context`; the tool itself (its
   * schemas and their compiled validators) is shared by every request of the process.
   */
  call(args: unknown, context: ToolContext): Promise<CallToolResult>;
  /**
   * The tool's structured result, the same steps as `call` (input check, run, output check) for a resource or a
   * prompt that shows the tool's JSON: one code path, one shape. Failures are thrown instead of answered: a ToolError
   * (`invalid_request` for arguments the input schema refuses, the tool's own codes such as `not_found`,
   * `server_error` for a result that breaks the output schema) or the domain's error as it is.
   */
  structured(args: unknown, context: ToolContext): Promise<Record<string, unknown>>;
}

/** A failure a tool reports to the agent as a tool error (`isError: true`), with a machine-readable code. */
export class ToolError extends Error {
  readonly code: string;
  readonly details: Readonly<Record<string, unknown>>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/**
 * A tool error result. The text is JSON `{ error, error_description, ... }` (the OAuth error shape the rest of the
 * service uses). No structuredContent: clients check that against the output schema of successful results.
 */
export function toolErrorResult(code: string, description: string, details: Readonly<Record<string, unknown>> = {}): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: code, error_description: description, ...details }) }] };
}

/**
 * What a failure inside a tool tells the agent, from the one failure classifier (src/shared/failure.ts): domain errors
 * as they are, a database that cannot answer or a conflict lost as the retryable `temporarily_unavailable`, anything
 * else masked and logged.
 */
function failureResult(error: unknown, context: ToolContext, toolName: string): CallToolResult {
  if (error instanceof ToolError) return toolErrorResult(error.code, error.message, error.details);
  if (error instanceof ValidationError) return toolErrorResult(error.code, error.message, error.problems.length > 0 ? { problems: error.problems } : {});
  const failure = classifyFailure(error);
  if (failure.kind === 'client' || isRetryable(failure)) return toolErrorResult(failure.error.code, failure.error.message);
  context.session.log.error({ err: error, tool: toolName }, 'mcp tool failed');
  return toolErrorResult('server_error', 'the tool failed unexpectedly; retry later');
}

let validators: jsonSchemaValidator | undefined;

/** One JSON Schema validator provider (an Ajv instance with formats) for the process. */
export function sharedValidators(): jsonSchemaValidator {
  validators ??= new AjvJsonSchemaValidator();
  return validators;
}

/** The schema complaints as the SDK's McpServer words them: `path: message`, comma-separated. */
function schemaProblems(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join('.')}: ${issue.message}`)).join(', ');
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): McpTool {
  // JSON Schema as the SDK's McpServer publishes it (without type arrays), converted once here instead of on every tools/list.
  const definition: Tool = {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: publishedJsonSchema(spec.input, 'input') as Tool['inputSchema'],
    outputSchema: publishedJsonSchema(spec.output, 'output') as Tool['outputSchema'],
    annotations: { title: spec.title, ...spec.annotations },
    ...(spec._meta === undefined || typeof spec._meta === 'function' ? {} : { _meta: spec._meta }),
  };
  const metaOf = typeof spec._meta === 'function' ? spec._meta : null;
  // One definition per site object (the site cache keeps one while it is fresh): a member's tools/list copies nothing.
  const siteDefinitions = new WeakMap<Site, Tool>();
  // Accepts exactly what the published output schema accepts, in the form that is cheaper to check (portable-schema.ts).
  const checkedOutput = checkedJsonSchema(definition.outputSchema as JsonSchemaType);
  let checkOutput: JsonSchemaValidator<unknown> | undefined;
  /** Input check, run, output check: what `call` answers and what `structured` returns. */
  async function structuredResult(args: unknown, context: ToolContext): Promise<Record<string, unknown>> {
    // zod compiles a schema's checks on its first parse and keeps them on the schema object: built once per process.
    const input = spec.input.safeParse(args ?? {});
    if (!input.success) throw new ToolError('invalid_request', `Input validation error: Invalid arguments for tool ${spec.name}: ${schemaProblems(input.error)}`);
    const structured = (await spec.run(input.data, context)) as Record<string, unknown>;
    // The published output schema is a promise to clients (the SDK client checks results against it too): a result
    // that breaks it is a bug. Checked with the compiled JSON Schema validator: no copy of the result is made.
    checkOutput ??= sharedValidators().getValidator(checkedOutput);
    const output = checkOutput(structured);
    if (!output.valid) {
      context.session.log.error({ tool: spec.name, problems: output.errorMessage }, 'mcp tool result does not match its output schema');
      throw new ToolError('server_error', 'the tool failed unexpectedly; retry later');
    }
    return structured;
  }
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    scopes: spec.scopes,
    needs: spec.needs ?? [],
    definition,
    definitionFor(site) {
      if (metaOf === null) return definition;
      let built = siteDefinitions.get(site);
      if (built === undefined) {
        const _meta = metaOf(site);
        built = _meta === undefined ? definition : { ...definition, _meta };
        siteDefinitions.set(site, built);
      }
      return built;
    },
    compile(validators) {
      checkOutput ??= validators.getValidator(checkedOutput);
    },
    async call(args, context) {
      let structured: Record<string, unknown>;
      try {
        structured = await structuredResult(args, context);
      } catch (error) {
        return failureResult(error, context, spec.name);
      }
      return { content: [{ type: 'text', text: structuredText(structured) }], structuredContent: structured };
    },
    structured: structuredResult,
  };
}

/** Read-only hints for tools that only read (every tool but the mark-read ones). */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
