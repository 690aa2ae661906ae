import type { Money } from '../shared/money.js';

/** Shared pieces of the commerce domain modules (orders, coupons, digital products). */

export function moneyOf(amount: number | string | null, currency: string): Money {
  return { amount: amount === null ? 0 : Number(amount), currency: currency.toUpperCase() };
}

/** A row's id as a number (MySQL and SQLite both give numbers, but counts may come back as strings). */
export function numberOf(value: unknown): number {
  return Number(value ?? 0);
}

