import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Scope } from '../clients/scopes.js';
import type { Variant } from '../config/config.js';
import { isDatabaseUnavailable } from '../db/connection.js';
import { AppError, ServiceUnavailableError, ValidationError } from '../shared/errors.js';
import type { ToolContext } from './session.js';

/**
 * One MCP tool: its name, description, typed input and output (zod, published as JSON Schema by the SDK), the scope
 * a caller needs (null: public), the variants it exists in, and what it does. Results carry `structuredContent`
 * (checked against the output schema by the SDK) and the same JSON as text for clients that read only text.
 */
export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The scope a caller needs; null for a public tool that anonymous callers get too. */
  scope: Scope | null;
  /** Variants the tool exists in (default both): variant A's member fields exist only in variant A. */
  variants?: readonly Variant[];
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(input: z.output<I>, context: ToolContext): Promise<z.input<O>>;
}

export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly scope: Scope | null;
  readonly variants: readonly Variant[];
  /** Registers the working tool on a request's server. */
  register(server: McpServer, context: ToolContext): void;
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

/** What a failure inside a tool tells the agent: domain errors as they are, an unreachable database as retryable, anything else masked and logged. */
function failureResult(error: unknown, context: ToolContext, toolName: string): CallToolResult {
  if (error instanceof ToolError) return toolErrorResult(error.code, error.message, error.details);
  if (error instanceof ValidationError) return toolErrorResult(error.code, error.message, error.problems.length > 0 ? { problems: error.problems } : {});
  if (error instanceof AppError && error.status < 500) return toolErrorResult(error.code, error.message);
  if (isDatabaseUnavailable(error)) return toolErrorResult('temporarily_unavailable', 'the database is unreachable; retry shortly');
  if (error instanceof ServiceUnavailableError) return toolErrorResult(error.code, error.message);
  context.session.log.error({ err: error, tool: toolName }, 'mcp tool failed');
  return toolErrorResult('server_error', 'the tool failed unexpectedly; retry later');
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): McpTool {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    scope: spec.scope,
    variants: spec.variants ?? ['A', 'B'],
    register(server, context) {
      // Widened to the plain object schema type: the SDK's callback type cannot be resolved for a generic schema. The
      // SDK parses `args` with spec.input before calling, so they are z.output<I>.
      const inputSchema: z.ZodObject = spec.input;
      const outputSchema: z.ZodObject = spec.output;
      server.registerTool(
        spec.name,
        { title: spec.title, description: spec.description, inputSchema, outputSchema, annotations: { title: spec.title, ...spec.annotations } },
        async (args): Promise<CallToolResult> => {
          try {
            const structured = (await spec.run(args as z.output<I>, context)) as Record<string, unknown>;
            return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
          } catch (error) {
            return failureResult(error, context, spec.name);
          }
        },
      );
    },
  };
}

/** Read-only hints for tools that only read (every tool but the mark-read ones). */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
