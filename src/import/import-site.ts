import type { Database } from '../db/connection.js';
import { ImportContext, type ImportReport } from './context.js';
import { importConsultingServices, importEvents, importStudyGroups } from './resources/scheduling.js';
import { importCoupons, importDigitalProducts, importMembershipPlans, importPayments, importSubscriptions } from './resources/commerce.js';
import { importCourses, importEnrollments } from './resources/courses.js';
import { importNotifications, importNotificationSubscriptions } from './resources/inbox.js';
import { importOAuthClients, importVendorPlatforms } from './resources/oauth.js';
import { importPages, importPosts } from './resources/content.js';
import { importLecturers, importUsers } from './resources/people.js';
import { importSite } from './resources/site.js';
import { validateImportDocument } from './validate.js';
import { withTransaction } from '../db/transaction.js';
import { siteChanged } from '../sites/sites.js';

export type { ImportCount, ImportReport, ImportTable } from './context.js';
export { IMPORT_TABLES } from './context.js';

/**
 * `schoolgate import FILE`: loads one site's members and data from an import document (docs/import.schema.json).
 *
 * An invalid document is refused with a ValidationError (code invalid_import_document) listing a JSON pointer and a
 * reason for every problem, before anything is written. A valid one is applied in one transaction, so a failure
 * part-way writes nothing either. Every record is upserted by its external key and left alone when already equal,
 * so importing the same document again changes nothing. The import never deletes.
 */
export async function importSiteDocument(db: Database, raw: unknown): Promise<ImportReport> {
  const document = validateImportDocument(raw);
  const report = await withTransaction(db, async (trx) => {
    const ctx = new ImportContext(trx, document, new Date());
    const site = await importSite(ctx);
    await importUsers(ctx);
    await importLecturers(ctx);
    await importCourses(ctx);
    await importDigitalProducts(ctx);
    await importCoupons(ctx);
    await importMembershipPlans(ctx);
    await importSubscriptions(ctx);
    await importConsultingServices(ctx);
    await importStudyGroups(ctx);
    await importEvents(ctx);
    await importEnrollments(ctx);
    await importPayments(ctx);
    await importNotifications(ctx);
    await importNotificationSubscriptions(ctx);
    await importOAuthClients(ctx);
    await importVendorPlatforms(ctx);
    await importPosts(ctx);
    await importPages(ctx);
    return { site, counts: ctx.counts, generatedClientSecrets: ctx.generatedClientSecrets };
  });
  siteChanged();
  return report;
}
