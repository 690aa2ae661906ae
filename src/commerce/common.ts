import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';

/** Shared pieces of the commerce domain modules (orders, coupons, digital products). */

export type Queryable = Database | Knex.Transaction;

/** An amount of money: integer minor units of an ISO 4217 currency (upper case). */
export interface Money {
  amount: number;
  currency: string;
}

export function moneyOf(amount: number | string | null, currency: string): Money {
  return { amount: amount === null ? 0 : Number(amount), currency: currency.toUpperCase() };
}

/** A `<prefix>_amount` / `<prefix>_currency` column pair, or null when either is null. */
export function moneyColumnsOf(amount: unknown, currency: unknown): Money | null {
  if (amount === null || amount === undefined || currency === null || currency === undefined) return null;
  return moneyOf(Number(amount), String(currency));
}

/** A row's id as a number (MySQL and SQLite both give numbers, but counts may come back as strings). */
export function numberOf(value: unknown): number {
  return Number(value ?? 0);
}

/** Both stores' duplicate-key failures (MySQL ER_DUP_ENTRY, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(error.message);
}

/**
 * `lower(column) LIKE %text%` with `text` matched literally (its `%`, `_` and `!` escaped with `!`, an escape
 * character both stores accept in the same spelling), ignoring case on both stores.
 */
export function whereContains(builder: Knex.QueryBuilder, columns: readonly string[], text: string): void {
  const pattern = `%${text.toLowerCase().replace(/[!%_]/g, (character) => `!${character}`)}%`;
  builder.andWhere((any) => {
    for (const column of columns) any.orWhereRaw(`lower(??) like ? escape '!'`, [column, pattern]);
  });
}
