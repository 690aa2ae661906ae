import type { McpResource } from '../resource.js';

/** The resources and resource templates of /mcp, public ones first, in the order resources/list shows them. */
export const RESOURCES: readonly McpResource[] = [];
