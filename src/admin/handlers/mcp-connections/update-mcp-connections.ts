import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { updateMcpConnections as applyChanges } from '../../mcp-connections.js';
import { mcpConnectionsRepresentation } from './representation.js';

/**
 * PATCH /school/mcp-connections (school:write): merge patch of the beta switch and the metadata-document policy.
 * Turning the beta off hides the OAuth applications (409 mcp_connections_disabled) but deletes and revokes nothing.
 */
export const updateMcpConnections: AdminHandler<'updateMcpConnections'> = async ({ db, site, headers, body }) => {
  const expectedVersion = versionFromIfMatch(headers['If-Match']);
  const settings = await applyChanges(
    db,
    site,
    {
      ...(body.betaEnabled === undefined ? {} : { betaEnabled: body.betaEnabled }),
      ...(body.openRegistration === undefined ? {} : { openRegistration: body.openRegistration }),
      ...(body.metadataDocumentHosts === undefined ? {} : { metadataDocumentHosts: body.metadataDocumentHosts }),
    },
    expectedVersion,
  );
  return { status: 200, body: mcpConnectionsRepresentation(settings), headers: { ETag: etagOf(settings.site.version) } };
};
