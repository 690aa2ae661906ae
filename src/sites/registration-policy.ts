import type { Database } from '../db/connection.js';
import { ValidationError } from '../shared/errors.js';
import { withTransaction } from '../db/transaction.js';

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Hosts whose Client ID Metadata Documents this site accepts when open registration is off (Authentication 5). */
export async function metadataDocumentHosts(db: Database, siteId: number): Promise<string[]> {
  const rows: Array<{ host: string }> = await db('site_metadata_document_hosts').where({ site_id: siteId }).orderBy('host').select('host');
  return rows.map((row) => row.host);
}

export function normalizeHost(host: string): string {
  const normalized = host.trim().toLowerCase();
  if (!HOSTNAME.test(normalized)) throw new ValidationError(`"${host}" is not a host name`, [{ pointer: '/host', message: 'must be a DNS host name' }]);
  return normalized;
}

/** Replaces the allowlist in one transaction. */
export async function setMetadataDocumentHosts(db: Database, siteId: number, hosts: readonly string[]): Promise<string[]> {
  const wanted = [...new Set(hosts.map(normalizeHost))].sort();
  await withTransaction(db, async (trx) => {
    await trx('site_metadata_document_hosts').where({ site_id: siteId }).whereNotIn('host', wanted).delete();
    const present = new Set((await trx('site_metadata_document_hosts').where({ site_id: siteId }).select('host')).map((row: { host: string }) => row.host));
    const now = new Date();
    const missing = wanted.filter((host) => !present.has(host)).map((host) => ({ site_id: siteId, host, created_at: now }));
    if (missing.length > 0) await trx('site_metadata_document_hosts').insert(missing);
  });
  return wanted;
}
