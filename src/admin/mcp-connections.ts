import type { Database } from '../db/connection.js';
import { ConflictError, ValidationError, type FieldProblem } from '../shared/errors.js';
import { metadataDocumentHosts, normalizeHost, setMetadataDocumentHosts } from '../sites/registration-policy.js';
import { getSite, siteChanged, updateSite, type Site } from '../sites/sites.js';
import { withTransaction } from '../db/transaction.js';

/**
 * The MCP connections settings of a site (admin API /school/mcp-connections and the admin area's settings page): the
 * beta switch that shows Developers > OAuth applications (Authentication 4) and the Client ID Metadata Document
 * policy (Authentication 5). They live on the `sites` row plus its host allowlist, and share the row's `version`.
 */
export interface McpConnectionsSettings {
  site: Site;
  betaEnabled: boolean;
  openRegistration: boolean;
  metadataDocumentHosts: string[];
}

export interface McpConnectionsChanges {
  betaEnabled?: boolean;
  openRegistration?: boolean;
  metadataDocumentHosts?: readonly string[];
}

export async function readMcpConnections(db: Database, site: Site): Promise<McpConnectionsSettings> {
  return { site, betaEnabled: site.mcpConnectionsEnabled, openRegistration: site.openRegistration, metadataDocumentHosts: await metadataDocumentHosts(db, site.id) };
}

function normalizeHosts(hosts: readonly string[]): string[] {
  const problems: FieldProblem[] = [];
  const normalized = hosts.flatMap((host, index) => {
    try {
      return [normalizeHost(host)];
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push({ pointer: `/metadataDocumentHosts/${index}`, message: 'must be a DNS host name without scheme, port or path' });
      return [];
    }
  });
  if (problems.length > 0) throw new ValidationError('The MCP connections settings are not valid.', problems);
  return [...new Set(normalized)].sort();
}

/**
 * Applies the changes if the site is still at `expectedVersion` (else ConflictError `version_mismatch`), in one
 * transaction: the flags and the version bump on the site row, then the allowlist. Nothing to change: no write, but
 * the version must still match.
 */
export async function updateMcpConnections(db: Database, site: Site, changes: McpConnectionsChanges, expectedVersion: number): Promise<McpConnectionsSettings> {
  const hosts = changes.metadataDocumentHosts === undefined ? undefined : normalizeHosts(changes.metadataDocumentHosts);
  const current = await readMcpConnections(db, await getSite(db, site.id));
  if (current.site.version !== expectedVersion) throw new ConflictError('The settings were changed by someone else; read them again and retry.', 'version_mismatch');
  const unchanged =
    (changes.betaEnabled === undefined || changes.betaEnabled === current.betaEnabled) &&
    (changes.openRegistration === undefined || changes.openRegistration === current.openRegistration) &&
    (hosts === undefined || JSON.stringify(hosts) === JSON.stringify(current.metadataDocumentHosts));
  if (unchanged) return current;
  const updated = await withTransaction(db, async (trx) => {
    const saved = await updateSite(
      trx,
      site.id,
      {
        ...(changes.betaEnabled === undefined ? {} : { mcpConnectionsEnabled: changes.betaEnabled }),
        ...(changes.openRegistration === undefined ? {} : { openRegistration: changes.openRegistration }),
      },
      expectedVersion,
    );
    if (hosts !== undefined) await setMetadataDocumentHosts(trx, site.id, hosts);
    return saved;
  });
  // Again after the commit: a request between updateSite's own call and the commit may have cached the old row.
  siteChanged();
  return readMcpConnections(db, updated);
}
