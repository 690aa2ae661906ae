import { getSite } from '../../../sites/sites.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { readMcpConnections } from '../../mcp-connections.js';
import { mcpConnectionsRepresentation } from './representation.js';

/** GET /school/mcp-connections (school:read): the beta switch and the metadata-document policy, beta on or off. */
export const getMcpConnections: AdminHandler<'getMcpConnections'> = async ({ db, site }) => {
  const settings = await readMcpConnections(db, await getSite(db, site.id));
  return { status: 200, body: mcpConnectionsRepresentation(settings), headers: { ETag: etagOf(settings.site.version) } };
};
