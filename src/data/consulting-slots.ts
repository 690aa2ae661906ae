import type { Knex } from 'knex';
import { requireDate, toDate } from '../db/connection.js';
import { selectColumns } from './columns.js';

/**
 * The `consulting_slots` table: a service's recurring weekly availability. The row, the columns and the record the
 * public catalogue, the member API and the operators' slots all read.
 */

/** Days of the week in ISO order (Monday first), as the APIs name them. */
export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A row as the drivers answer it (MySQL may answer numbers as strings; times come as Date, string or number). */
export interface ConsultingSlotRow {
  id: number | string;
  service_id: number | string;
  weekday: number | string;
  start_time: string;
  duration_minutes: number | string;
  timezone: string;
  capacity: number | string;
  host_user_id: number | string | null;
  valid_from: unknown;
  valid_until: unknown;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

export const CONSULTING_SLOT_COLUMNS = [
  'id',
  'service_id',
  'weekday',
  'start_time',
  'duration_minutes',
  'timezone',
  'capacity',
  'host_user_id',
  'valid_from',
  'valid_until',
  'version',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof ConsultingSlotRow>;

export interface ConsultingSlotData {
  id: number;
  serviceId: number;
  /** 0 = Sunday … 6 = Saturday (JavaScript's getDay(), as stored and imported). */
  weekday: number;
  /** `HH:MM`, 24-hour, in `timezone`. */
  startTime: string;
  durationMinutes: number;
  /** IANA time zone name. */
  timezone: string;
  capacity: number;
  hostUserId: number | null;
  validFrom: Date | null;
  validUntil: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Every column of `consulting_slots` (or of the alias `table`), for a select. */
export function consultingSlotColumns(table = 'consulting_slots'): string[] {
  return selectColumns(table, CONSULTING_SLOT_COLUMNS);
}

export function consultingSlotFromRow(row: ConsultingSlotRow): ConsultingSlotData {
  return {
    id: Number(row.id),
    serviceId: Number(row.service_id),
    weekday: Number(row.weekday),
    startTime: row.start_time,
    durationMinutes: Number(row.duration_minutes),
    timezone: row.timezone,
    capacity: Number(row.capacity),
    hostUserId: row.host_user_id === null ? null : Number(row.host_user_id),
    validFrom: toDate(row.valid_from),
    validUntil: toDate(row.valid_until),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** Slots whose validity has not ended at `now` (`table` is the slots' name or alias in the query). */
export function currentSlots(query: Knex.QueryBuilder, now: Date, table = 'consulting_slots'): Knex.QueryBuilder {
  return query.where((current) => current.whereNull(`${table}.valid_until`).orWhere(`${table}.valid_until`, '>', now));
}

/** A stored weekday (0 = Sunday … 6 = Saturday) by the name the APIs give it. */
export function weekdayName(stored: number): Weekday {
  return WEEKDAYS[(((stored + 6) % 7) + 7) % 7] ?? 'MONDAY';
}

/** The order the APIs list a service's week in: Monday first, then start time, then id. */
export function compareSlots(a: Pick<ConsultingSlotData, 'weekday' | 'startTime' | 'id'>, b: Pick<ConsultingSlotData, 'weekday' | 'startTime' | 'id'>): number {
  return WEEKDAYS.indexOf(weekdayName(a.weekday)) - WEEKDAYS.indexOf(weekdayName(b.weekday)) || a.startTime.localeCompare(b.startTime) || a.id - b.id;
}
