import type { FieldProblem } from './errors.js';

/**
 * Money everywhere (docs/data-model.md): integer minor units of an ISO 4217 currency, stored as a
 * `<prefix>_amount` / `<prefix>_currency` column pair, never a float.
 */
export interface Money {
  amount: number;
  currency: string;
}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export function isCurrencyCode(code: string): boolean {
  return CURRENCIES.has(code);
}

/** The Money a column pair holds, or null (no price) when either column is empty. */
export function moneyFromColumns(amount: unknown, currency: unknown): Money | null {
  if (amount === null || amount === undefined || typeof currency !== 'string' || currency === '') return null;
  return { amount: Number(amount), currency: currency.toUpperCase() };
}

/** The `<prefix>_amount` / `<prefix>_currency` columns of a price; both null for none. */
export function moneyColumns(prefix: string, money: Money | null | undefined): Record<string, number | string | null> {
  return { [`${prefix}_amount`]: money?.amount ?? null, [`${prefix}_currency`]: money?.currency ?? null };
}

/** A price an operator sets: not negative, in a currency the runtime knows as ISO 4217. Problems at `pointer`. */
export function priceProblems(price: Money | null | undefined, pointer: string): FieldProblem[] {
  if (price === null || price === undefined) return [];
  const problems: FieldProblem[] = [];
  if (price.amount < 0) problems.push({ pointer: `${pointer}/amount`, message: 'must not be negative' });
  if (!isCurrencyCode(price.currency)) problems.push({ pointer: `${pointer}/currency`, message: 'is not an ISO 4217 currency code' });
  return problems;
}
