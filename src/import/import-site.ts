import type { Database } from '../db/connection.js';
import { ImportContext, type ImportReport, type ImportTable } from './context.js';
import type { ImportDocument } from './document.js';
import { importConsultingServices, importEvents, importStudyGroups } from './resources/scheduling.js';
import { importCoupons, importDigitalProducts, importMembershipPlans, importPayments, importSubscriptions } from './resources/commerce.js';
import { importCourses, importEnrollments } from './resources/courses.js';
import { importNotifications, importNotificationSubscriptions } from './resources/inbox.js';
import { importOAuthClients, importVendorPlatforms } from './resources/oauth.js';
import { importPages, importPosts } from './resources/content.js';
import { importLecturers, importUsers } from './resources/people.js';
import { importSite } from './resources/site.js';
import { validateImportDocument, validateImportSource } from './validate.js';
import { isDocumentObject, objectSource, type ImportSource, type StreamedSection } from './document-parts.js';
import { fileSource } from './document-stream.js';
import { withTransaction } from '../db/transaction.js';
import { siteChanged } from '../sites/sites.js';

export type { ImportCount, ImportReport, ImportTable } from './context.js';
export { IMPORT_TABLES } from './context.js';

/** What an import reports as it writes: one document section at a time, in the order they are written. */
export interface ImportProgress {
  /** The table the section's records go to; their child rows (a course's sections and lectures, …) go with them. */
  table: ImportTable;
  /** Records of the section written so far, of the `total` the document holds. */
  done: number;
  total: number;
  /** Set on the section's last report, once every record and child row of it is written. */
  finished: boolean;
}

export interface ImportOptions {
  /** Called for every record written (tens of thousands of times on a large document): keep it cheap. */
  onProgress?: (progress: ImportProgress) => void;
}

/** The document sections that are lists of records. */
type ListSection = { [K in keyof ImportDocument]-?: NonNullable<ImportDocument[K]> extends readonly unknown[] ? K : never }[keyof ImportDocument];

interface WholeSection {
  /** The table progress reports name. */
  table: ImportTable;
  /** The table that gets exactly one row per record of the section, counted for progress (default: `table`). */
  counted?: ImportTable;
  records: Exclude<ListSection, StreamedSection>;
  write: (ctx: ImportContext) => Promise<void>;
}

/** A list read record by record (document-parts.ts) and written a chunk at a time. */
interface ChunkedSection {
  table: ImportTable;
  counted?: ImportTable;
  records: StreamedSection;
  writeChunk: (ctx: ImportContext, chunk: never[]) => Promise<void>;
}

type Section = WholeSection | ChunkedSection;

/**
 * Records written per chunk: a few statements per table for each (upsert-batch.ts), so the statements per record
 * fall as the chunk grows, while the statement, its bound values and the rows read back stay small.
 */
export const IMPORT_CHUNK_SIZE = 500;

/** The sections after the site, in the order they are written: every record after the records it references. */
const SECTIONS: readonly Section[] = [
  // An account that already exists gets no users row, but every user gets its site_memberships row.
  { table: 'users', counted: 'site_memberships', records: 'users', writeChunk: importUsers },
  { table: 'lecturer_profiles', records: 'lecturers', write: importLecturers },
  { table: 'courses', records: 'courses', write: importCourses },
  { table: 'digital_products', records: 'digitalProducts', write: importDigitalProducts },
  { table: 'coupons', records: 'coupons', write: importCoupons },
  { table: 'membership_plans', records: 'membershipPlans', write: importMembershipPlans },
  { table: 'subscriptions', records: 'subscriptions', write: importSubscriptions },
  { table: 'consulting_services', records: 'consultingServices', write: importConsultingServices },
  { table: 'study_groups', records: 'studyGroups', write: importStudyGroups },
  { table: 'events', records: 'events', write: importEvents },
  { table: 'enrollments', records: 'enrollments', writeChunk: importEnrollments },
  { table: 'payments', records: 'payments', write: importPayments },
  { table: 'notifications', records: 'notifications', write: importNotifications },
  { table: 'notification_subscriptions', records: 'notificationSubscriptions', write: importNotificationSubscriptions },
  { table: 'oauth_clients', records: 'oauthClients', write: importOAuthClients },
  { table: 'vendor_platforms', records: 'vendorPlatforms', write: importVendorPlatforms },
  { table: 'posts', records: 'posts', write: importPosts },
  { table: 'pages', records: 'pages', write: importPages },
];

/** Runs one section's writes, reporting a record each time a row of its counted table is written. */
async function writeSection<T>(
  ctx: ImportContext,
  section: { table: ImportTable; counted: ImportTable; total: number },
  onProgress: ImportOptions['onProgress'],
  write: () => Promise<T>,
): Promise<T> {
  if (!onProgress || section.total === 0) return write();
  const { table, counted, total } = section;
  let done = 0;
  onProgress({ table, done, total, finished: false });
  ctx.onRow = (written) => {
    if (written === counted && done < total) onProgress({ table, done: ++done, total, finished: false });
  };
  let result: T;
  try {
    result = await write();
  } finally {
    ctx.onRow = undefined;
  }
  onProgress({ table, done: total, total, finished: true });
  return result;
}

/**
 * Writes a streamed list, read again from the source, in chunks of IMPORT_CHUNK_SIZE records. The next chunk is read
 * while the database writes the one before (on MySQL the importer otherwise waits on the server most of the time);
 * the writes themselves stay one after the other, on the transaction's one connection.
 */
async function writeChunks(ctx: ImportContext, source: ImportSource, section: ChunkedSection): Promise<void> {
  let chunk: never[] = [];
  let writing: Promise<void> = Promise.resolve();
  const write = async (records: never[]): Promise<void> => {
    await writing;
    writing = section.writeChunk(ctx, records);
    // Handled when awaited (before the next write, or at the end); until then a failure must not count as unhandled.
    writing.catch(() => undefined);
  };
  for await (const part of source.parts(section.records)) {
    if (part.kind !== 'record' || part.section !== section.records) continue;
    chunk.push(part.value as never);
    if (chunk.length < IMPORT_CHUNK_SIZE) continue;
    await write(chunk);
    chunk = [];
  }
  if (chunk.length > 0) await write(chunk);
  await writing;
}

/**
 * `schoolgate import FILE`: loads one site's members and data from an import document (docs/import.schema.json).
 *
 * An invalid document is refused with a ValidationError (code invalid_import_document) listing a JSON pointer and a
 * reason for every problem, before anything is written. A valid one is applied in one transaction, so a failure
 * part-way writes nothing either. Every record is upserted by its external key and left alone when already equal,
 * so importing the same document again changes nothing. The import never deletes.
 *
 * The document may be in memory (`raw`) or a source read part by part (importSiteFile): the large lists (users,
 * enrollments) are validated in one pass and written in a second, a chunk of records at a time, so memory holds their
 * keys and ids but never all their records.
 */
export async function importSiteDocument(db: Database, raw: unknown, options: ImportOptions = {}): Promise<ImportReport> {
  if (!isDocumentObject(raw)) {
    validateImportDocument(raw);
    throw new Error('import: a document that is not an object passed validation');
  }
  return importFromSource(db, objectSource(raw), options);
}

/** importSiteDocument for a document file, read in chunks (document-stream.ts) on each pass. */
export function importSiteFile(db: Database, file: string, options: ImportOptions = {}): Promise<ImportReport> {
  return importFromSource(db, fileSource(file), options);
}

async function importFromSource(db: Database, source: ImportSource, options: ImportOptions): Promise<ImportReport> {
  const { head, totals } = await validateImportSource(source);
  const { onProgress } = options;
  const report = await withTransaction(db, async (trx) => {
    const ctx = new ImportContext(trx, head, new Date());
    const site = await writeSection(ctx, { table: 'sites', counted: 'sites', total: 1 }, onProgress, () => importSite(ctx));
    for (const section of SECTIONS) {
      const counted = section.counted ?? section.table;
      if ('writeChunk' in section) {
        await writeSection(ctx, { table: section.table, counted, total: totals[section.records] }, onProgress, () => writeChunks(ctx, source, section));
      } else {
        const total = head[section.records]?.length ?? 0;
        await writeSection(ctx, { table: section.table, counted, total }, onProgress, () => section.write(ctx));
      }
    }
    return { site, counts: ctx.counts, generatedClientSecrets: ctx.generatedClientSecrets };
  });
  siteChanged();
  return report;
}
