import type { Database } from '../../db/connection.js';
import { metadataDocumentHosts } from '../../sites/registration-policy.js';
import type { Site } from '../../sites/sites.js';
import { MetadataDocumentRefusedError } from './errors.js';

/** How the site lets a document host in. */
export interface HostAccess {
  /** On the site's allowlist: the operator vouches for it, so it may even resolve to a private address. */
  allowlisted: boolean;
}

/**
 * Spec, Authentication 5: a document resolves only where the site permits its host, an allowlisted host, or any host
 * when open registration is on. Pure, so the policy is testable without a network.
 */
export function hostAccess(site: Pick<Site, 'openRegistration'>, allowlist: readonly string[], hostname: string): HostAccess | null {
  const allowlisted = allowlist.includes(hostname.toLowerCase());
  return allowlisted || site.openRegistration ? { allowlisted } : null;
}

/** The site's verdict on the document's host, read fresh on every resolution so an operator's change applies at once. */
export async function requireHostAccess(db: Database, site: Site, url: URL): Promise<HostAccess> {
  const access = hostAccess(site, await metadataDocumentHosts(db, site.id), url.hostname);
  if (!access) {
    throw new MetadataDocumentRefusedError(
      'host_not_permitted',
      `this site does not accept Client ID Metadata Documents from ${url.hostname}: the host is not on its allowlist and open registration is off; ask the site operator to allowlist the host, or to create an OAuth application for you in the site admin area`,
    );
  }
  return access;
}
