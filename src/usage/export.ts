import type { Database } from '../db/connection.js';
import { listSiteTrustedDocuments } from '../data/trusted-documents.js';
import type { Site } from '../sites/sites.js';
import type { VariantProfile } from '../variant.js';
import { USAGE_EXPORT_FORMAT, type ClientDocuments, type UsageExport } from './export-format.js';
import { elementUsage, usageWindow } from './report.js';

/**
 * The usage export of a site (docs/usage.md, "The export"): every element used over the last `days` UTC days with
 * its clients, and every client's published trusted documents, as `npx schoolgate usage export` writes it and
 * `GET /usage/export` answers it. `npm run contract:diff -- --usage` judges a change of the contracts against it.
 */
export async function usageExport(db: Database, site: Site, variant: VariantProfile, days: number, now: Date = new Date()): Promise<UsageExport> {
  const window = usageWindow(days, now);
  const [usage, documents] = await Promise.all([elementUsage(db, site.id, window), listSiteTrustedDocuments(db, site.id)]);
  const byClient = new Map<string, ClientDocuments>();
  // Rows come by client, then oldest first.
  for (const document of documents) {
    let client = byClient.get(document.clientId);
    if (!client) {
      client = { clientId: document.clientId, clientName: document.clientName, kind: document.clientKind, documents: [] };
      byClient.set(document.clientId, client);
    }
    client.documents.push({ id: document.documentId, operationNames: document.operationNames, document: document.document, publishedAt: document.publishedAt.toISOString() });
  }
  return {
    format: USAGE_EXPORT_FORMAT,
    site: site.origin,
    variant: variant.name,
    generatedAt: now.toISOString(),
    from: window.from,
    to: window.to,
    days,
    // The export's elements carry no total: a reader sums the clients' uses.
    usage: usage.map(({ api, element, clients }) => ({ api, element, clients })),
    trustedDocuments: [...byClient.values()],
  };
}
