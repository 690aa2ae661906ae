import type { Knex } from 'knex';
import { requireDate } from '../db/connection.js';
import type { Queryable } from '../db/queries.js';
import { moneyFromColumns, type Money } from '../shared/money.js';
import { selectColumns } from './columns.js';

/**
 * The `consulting_services` table and its course links (`consulting_service_courses`): the row, the columns, the
 * record every view starts from, and the site's services as a query. The public catalogue, the member's offered
 * services and the operators' services are filters and projections of these.
 */

export const SERVICE_STATUSES = ['draft', 'published', 'archived'] as const;
export type ServiceStatus = (typeof SERVICE_STATUSES)[number];

/** A row as the drivers answer it (MySQL may answer numbers as strings). */
export interface ConsultingServiceRow {
  id: number | string;
  title: string;
  description: string | null;
  duration_minutes: number | string;
  capacity: number | string;
  price_amount: number | string | null;
  price_currency: string | null;
  status: string;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

export const CONSULTING_SERVICE_COLUMNS = [
  'id',
  'title',
  'description',
  'duration_minutes',
  'capacity',
  'price_amount',
  'price_currency',
  'status',
  'version',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof ConsultingServiceRow>;

export interface ConsultingServiceData {
  id: number;
  title: string;
  description: string | null;
  /** Default length of one meeting, minutes. */
  durationMinutes: number;
  /** Default seats per meeting. */
  capacity: number;
  /** Null when the service has no list price (e.g. included with a course). */
  price: Money | null;
  status: ServiceStatus;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Every column of `consulting_services`, for a select. */
export function consultingServiceColumns(table = 'consulting_services'): string[] {
  return selectColumns(table, CONSULTING_SERVICE_COLUMNS);
}

export function consultingServiceFromRow(row: ConsultingServiceRow): ConsultingServiceData {
  return {
    id: Number(row.id),
    title: row.title,
    description: row.description,
    durationMinutes: Number(row.duration_minutes),
    capacity: Number(row.capacity),
    price: moneyFromColumns(row.price_amount, row.price_currency),
    status: (SERVICE_STATUSES as readonly string[]).includes(row.status) ? (row.status as ServiceStatus) : 'draft',
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** The consulting services of one site: the base of every services query. */
export function consultingServicesOfSite(db: Queryable, siteId: number): Knex.QueryBuilder {
  return db('consulting_services').where('consulting_services.site_id', siteId);
}

/**
 * The courses (`c`) linked to the given services (`csc`), of the site only: links never cross sites. Callers add the
 * course filter, the order and the columns they show.
 */
export function coursesOfServices(db: Queryable, siteId: number, serviceIds: readonly number[]): Knex.QueryBuilder {
  return db('consulting_service_courses as csc')
    .join('courses as c', 'c.id', 'csc.course_id')
    .whereIn('csc.service_id', [...new Set(serviceIds)])
    .where('c.site_id', siteId);
}
