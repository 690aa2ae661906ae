import type { Site } from '../../sites/sites.js';
import type { Feature } from '../contract.js';
import { AdminProblem } from './problems.js';

/**
 * Site features that operations depend on (`x-schoolgate-feature` in the contract). While a feature is off its
 * operations answer 409: the request conflicts with the site's state, which this same API can change (403 stays
 * reserved to "get another token"). Checked after authentication and scope, before any lookup (so never a 404).
 */
const FEATURE_GATES: Record<Feature, { enabled: (site: Site) => boolean; problem: () => AdminProblem }> = {
  mcp_connections: {
    enabled: (site) => site.mcpConnectionsEnabled,
    problem: () =>
      new AdminProblem(
        409,
        'mcp_connections_disabled',
        'OAuth applications are available only while the MCP connections beta is on. Turn it on with PATCH /school/mcp-connections {"betaEnabled": true}.',
      ),
  },
};

export function requireFeature(site: Site, feature: Feature): void {
  const gate = FEATURE_GATES[feature];
  if (!gate.enabled(site)) throw gate.problem();
}
