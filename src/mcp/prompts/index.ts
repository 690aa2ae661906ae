import type { McpPrompt } from '../prompt.js';

/** The prompts of /mcp, in the order prompts/list shows them. */
export const PROMPTS: readonly McpPrompt[] = [];
