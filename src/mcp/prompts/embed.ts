import type { PromptMessage } from '@modelcontextprotocol/server';
import { PromptArgumentError } from '../prompt.js';
import { ResourceUnavailableError, type McpResource } from '../resource.js';
import type { ToolContext } from '../session.js';
import { hasMemberFeatures } from '../../variant.js';

/** Whether `resource` exists in this deployment: a prompt leaves out what its school does not have. */
export function isOffered(context: ToolContext, resource: McpResource): boolean {
  return hasMemberFeatures(context.session.services.variant, resource.spec);
}

/** A user message of plain text: a prompt's instruction, or data that has no resource of its own. */
export function userText(text: string): PromptMessage {
  return { role: 'user', content: { type: 'text', text } };
}

/**
 * `resource` read for the caller at this moment, as user messages that embed its contents (one message per item of
 * the contents; a resource of ours has one). The client gets the same text `resources/read` would answer.
 *
 * `argument` names the prompt argument the resource's URI was built from: a resource that cannot be read (a course the
 * member is not enrolled in) is then that argument's fault, answered -32602 naming it.
 */
export async function embedResource(context: ToolContext, resource: McpResource, options: { params?: Readonly<Record<string, string>>; argument?: string } = {}): Promise<PromptMessage[]> {
  const params = options.params ?? {};
  const uri = resource.uri(context.site, params);
  let contents: Awaited<ReturnType<McpResource['spec']['read']>>;
  try {
    contents = await resource.spec.read(context, uri, params);
  } catch (error) {
    if (error instanceof ResourceUnavailableError && options.argument !== undefined) throw new PromptArgumentError(`${options.argument}: ${error.message}`);
    throw error;
  }
  return contents.map((item) => ({ role: 'user', content: { type: 'resource', resource: item } }));
}
