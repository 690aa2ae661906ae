import type { components } from '../../../../generated/admin-api.js';
import type { McpConnectionsSettings } from '../../mcp-connections.js';

export type McpConnections = components['schemas']['McpConnections'];

export function mcpConnectionsRepresentation(settings: McpConnectionsSettings): McpConnections {
  return {
    betaEnabled: settings.betaEnabled,
    openRegistration: settings.openRegistration,
    metadataDocumentHosts: settings.metadataDocumentHosts,
    updatedAt: settings.site.updatedAt.toISOString(),
  };
}
