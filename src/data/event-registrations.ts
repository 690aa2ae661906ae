import type { Knex } from 'knex';
import { requireDate, toDate } from '../db/connection.js';
import type { Queryable } from '../db/queries.js';
import { selectColumns } from './columns.js';

/**
 * The `event_registrations` table: a member's registration for an event. The member's registrations and the
 * operators' registrations are filters and projections of its row and record.
 */

export const REGISTRATION_STATES = ['registered', 'canceled', 'attended', 'no_show'] as const;
export type RegistrationState = (typeof REGISTRATION_STATES)[number];

/** A row as the drivers answer it (MySQL may answer numbers as strings; times come as Date, string or number). */
export interface EventRegistrationRow {
  id: number | string;
  event_id: number | string;
  user_id: number | string;
  state: string;
  ticket_code: string | null;
  registered_at: unknown;
  canceled_at: unknown;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

export const EVENT_REGISTRATION_COLUMNS = ['id', 'event_id', 'user_id', 'state', 'ticket_code', 'registered_at', 'canceled_at', 'version', 'created_at', 'updated_at'] as const satisfies ReadonlyArray<
  keyof EventRegistrationRow
>;

export interface EventRegistrationData {
  id: number;
  eventId: number;
  userId: number;
  state: RegistrationState;
  ticketCode: string | null;
  registeredAt: Date;
  canceledAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The columns of `event_registrations` for a select; `except` leaves out columns another table of a join answers. */
export function eventRegistrationColumns(table = 'event_registrations', except: ReadonlyArray<(typeof EVENT_REGISTRATION_COLUMNS)[number]> = []): string[] {
  return selectColumns(
    table,
    EVENT_REGISTRATION_COLUMNS.filter((column) => !except.includes(column)),
  );
}

export function eventRegistrationFromRow(row: EventRegistrationRow): EventRegistrationData {
  return {
    id: Number(row.id),
    eventId: Number(row.event_id),
    userId: Number(row.user_id),
    state: (REGISTRATION_STATES as readonly string[]).includes(row.state) ? (row.state as RegistrationState) : 'registered',
    ticketCode: row.ticket_code,
    registeredAt: requireDate(row.registered_at),
    canceledAt: toDate(row.canceled_at),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** The registrations of one site: the base of every registrations query. */
export function eventRegistrationsOfSite(db: Queryable, siteId: number): Knex.QueryBuilder {
  return db('event_registrations').where('event_registrations.site_id', siteId);
}
