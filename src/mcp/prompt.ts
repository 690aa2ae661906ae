import type { GetPromptResult, Prompt } from '@modelcontextprotocol/server';
import type { Scope } from '../clients/scopes.js';
import type { MemberFeature } from '../variant.js';
import type { ToolContext } from './session.js';

/** One argument of a prompt: what `prompts/list` shows, and whether `completion/complete` suggests values for it. */
export interface PromptArgumentSpec {
  name: string;
  title?: string;
  description: string;
  required: boolean;
  /** Values that start with `prefix`, best first; the other arguments given so far are in `context`. */
  complete?(context: ToolContext, prefix: string, others: Readonly<Record<string, string>>): Promise<string[]>;
}

/**
 * An MCP prompt: a ready-made request a member picks in their client ("plan my study week"), whose messages embed
 * the resources the model needs, read for the caller at the moment the prompt is fetched.
 */
export interface PromptSpec {
  name: string;
  title: string;
  description: string;
  /** Every scope a caller needs; none for a prompt anonymous callers get too. */
  scopes: readonly Scope[];
  /** The member features the prompt reads (default none): it exists only where the deployment has them. */
  needs?: readonly MemberFeature[];
  arguments: readonly PromptArgumentSpec[];
  /** The messages, for arguments already checked against `arguments` (required ones present, no unknown names). */
  get(context: ToolContext, args: Readonly<Record<string, string>>): Promise<GetPromptResult>;
}

/** A prompt argument the caller got wrong (unknown value, e.g. a course the member is not enrolled in): -32602. */
export class PromptArgumentError extends Error {}

export class McpPrompt {
  readonly spec: PromptSpec;
  /** What `prompts/list` shows, built once. */
  readonly definition: Prompt;

  constructor(spec: PromptSpec) {
    this.spec = spec;
    this.definition = {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      arguments: spec.arguments.map((argument) => ({
        name: argument.name,
        ...(argument.title === undefined ? {} : { title: argument.title }),
        description: argument.description,
        required: argument.required,
      })),
    };
  }

  get scopes(): readonly Scope[] {
    return this.spec.scopes;
  }

  argument(name: string): PromptArgumentSpec | undefined {
    return this.spec.arguments.find((argument) => argument.name === name);
  }

  /** The problems with `args` (missing required, unknown names), in words; empty when they are fine. */
  problemsWith(args: Readonly<Record<string, string>>): string[] {
    const problems = this.spec.arguments.filter((argument) => argument.required && (args[argument.name] ?? '').trim() === '').map((argument) => `${argument.name} is required`);
    for (const name of Object.keys(args)) if (this.argument(name) === undefined) problems.push(`${name} is not an argument of ${this.spec.name}`);
    return problems;
  }
}

export function definePrompt(spec: PromptSpec): McpPrompt {
  return new McpPrompt(spec);
}
