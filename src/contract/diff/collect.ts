import type { ContractChange } from './changes.js';
import { graphqlChanges } from './graphql.js';
import { mcpChanges } from './mcp.js';
import { openapiChanges } from './openapi.js';
import type { ContractSources } from './sources.js';

/** Every contract change from `base` to `head`, of every API the contract covers: what the diff and the changelog report. */
export async function contractChanges(base: ContractSources, head: ContractSources, options: { today: string }): Promise<ContractChange[]> {
  return [...(await graphqlChanges(base, head, options)), ...openapiChanges(base, head, options), ...mcpChanges(base, head)];
}
