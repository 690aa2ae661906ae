import type { Knex } from 'knex';
import type { ImportDocument } from './document.js';
import { upsertRow, type Row, type UpsertResult } from './upsert.js';
import { upsertRows, type BatchOptions, type BatchRow } from './upsert-batch.js';

/** Every table an import writes, in the order the report lists them. */
export const IMPORT_TABLES = [
  'sites',
  'site_appearance',
  'site_metadata_document_hosts',
  'users',
  'site_roles',
  'site_memberships',
  'lecturer_profiles',
  'courses',
  'course_lecturers',
  'course_sections',
  'lectures',
  'digital_products',
  'digital_product_ownerships',
  'coupons',
  'membership_plans',
  'subscriptions',
  'consulting_services',
  'consulting_service_courses',
  'consulting_slots',
  'study_groups',
  'study_group_members',
  'study_group_sessions',
  'meetings',
  'meeting_seats',
  'events',
  'event_registrations',
  'enrollments',
  'lecture_progress',
  'payments',
  'payment_line_items',
  'payment_adjustments',
  'payment_invoices',
  'notifications',
  'notification_subscriptions',
  'oauth_clients',
  'vendor_platforms',
  'posts',
  'pages',
] as const;

export type ImportTable = (typeof IMPORT_TABLES)[number];

export interface ImportCount {
  created: number;
  updated: number;
  unchanged: number;
}

export interface ImportReport {
  site: { id: number; origin: string; created: boolean };
  /** Per table: rows inserted, rows updated, rows the document named that were already equal. */
  counts: Record<ImportTable, ImportCount>;
  /** Secrets generated for new confidential clients that the document gave none; shown only here, stored hashed. */
  generatedClientSecrets: Array<{ clientId: string; clientSecret: string }>;
}

/** A lookup from a document key (email, externalId, …) to a row id, filled as records are written. */
export class IdMap {
  private readonly ids = new Map<string, number>();
  constructor(
    private readonly what: string,
    private readonly normalize: (key: string) => string = (key) => key,
  ) {}

  set(key: string, id: number): void {
    this.ids.set(this.normalize(key), id);
  }

  /** The id of a key the document names; validation guarantees it was written before it is referenced. */
  get(key: string): number {
    const id = this.ids.get(this.normalize(key));
    if (id === undefined) throw new Error(`import: no ${this.what} "${key}" was written before it was referenced`);
    return id;
  }

  /** As get, for optional references. */
  optional(key: string | null | undefined): number | null {
    return key === null || key === undefined ? null : this.get(key);
  }
}

const foldEmail = (email: string): string => email.trim().toLowerCase();

/** Key of a record scoped to a parent, e.g. a lecture within its course. */
export function scopedKey(parent: string, child: string): string {
  return `${parent}\u0000${child}`;
}

/** State of one import run: the transaction, the site, the ids written so far and the tallies. */
export class ImportContext {
  readonly counts = Object.fromEntries(IMPORT_TABLES.map((table) => [table, { created: 0, updated: 0, unchanged: 0 }])) as Record<ImportTable, ImportCount>;
  readonly generatedClientSecrets: ImportReport['generatedClientSecrets'] = [];
  /** Set once the site row is written. */
  siteId = 0;
  /**
   * Whether this transaction created the site: then no row keyed by it (memberships, roles, enrollments, progress of
   * its lectures) can exist yet, and chunks of those skip their lookups.
   */
  siteCreated = false;
  /** Told of every row counted, for progress reports (import-site.ts); a plain call, cheap enough per row. */
  onRow?: (table: ImportTable) => void;

  /** Keyed by email, matched case-insensitively. */
  readonly users = new IdMap('user', foldEmail);
  readonly lecturers = new IdMap('lecturer', foldEmail);
  readonly courses = new IdMap('course');
  /** scopedKey(course externalId, lecture externalId) → lecture id. */
  readonly lectures = new IdMap('lecture');
  readonly products = new IdMap('digital product');
  readonly plans = new IdMap('membership plan');
  readonly services = new IdMap('consulting service');
  readonly events = new IdMap('event');
  readonly clients = new IdMap('OAuth client');

  constructor(
    readonly trx: Knex.Transaction,
    readonly document: ImportDocument,
    readonly now: Date,
  ) {}

  /** Upserts a row that has an `id` column and returns that id. */
  async save(table: ImportTable, key: Row | readonly Row[], values: Row): Promise<number> {
    const { outcome, id } = await upsertRow(this.trx, table, key, values, this.now);
    this.counts[table][outcome] += 1;
    this.onRow?.(table);
    if (id === null) throw new Error(`import: ${table} has no id column; use link()`);
    return id;
  }

  /** Upserts a chunk of rows of one table in a few statements (upsert-batch.ts), counted row by row like save(). */
  async saveAll(table: ImportTable, rows: readonly BatchRow[], options: BatchOptions = {}): Promise<UpsertResult[]> {
    const results = await upsertRows(this.trx, table, rows, this.now, options);
    for (const { outcome } of results) {
      this.counts[table][outcome] += 1;
      this.onRow?.(table);
    }
    return results;
  }

  /** Upserts a row whose id nobody needs (join rows, children keyed by their parent). */
  async link(table: ImportTable, key: Row, values: Row = {}): Promise<void> {
    const { outcome } = await upsertRow(this.trx, table, key, values, this.now);
    this.counts[table][outcome] += 1;
    this.onRow?.(table);
  }
}

/** Document times are RFC 3339 strings; columns take Date objects. */
export function time(value: string): Date {
  return new Date(value);
}

export function optionalTime(value: string | null | undefined): Date | null {
  return value === null || value === undefined ? null : new Date(value);
}
