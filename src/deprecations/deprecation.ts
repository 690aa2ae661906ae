/**
 * One deprecated element of a contract (docs/versioning.md): a GraphQL schema coordinate (`Course.slug`,
 * `Query.courses(after:)`, `LectureState.DONE`) or an admin API operation (by operationId), with the date from which it
 * may be removed (its sunset) and what clients should use instead.
 */
export interface Deprecation {
  api: 'graphql' | 'openapi';
  /** GraphQL: the schema coordinate. OpenAPI: the operationId, or the JSON pointer of a deprecated parameter or property. */
  key: string;
  /** Where, in the terms of the API: `Course.slug`, `GET /school`. */
  where: string;
  /** OpenAPI only: the JSON pointer of the deprecated object (`/paths/~1school/get`). */
  pointer?: string;
  /** GraphQL only: the variants that have the element. */
  variants?: string[];
  /** `YYYY-MM-DD`, or null when the contract does not give a valid one (the lint refuses that). */
  sunset: string | null;
  /** OpenAPI only: the day the deprecation took effect (`x-deprecated-since`), which responses announce; null when absent or invalid. */
  since?: string | null;
  /** GraphQL: a schema coordinate; OpenAPI: an operationId (or a short text for a parameter or property). */
  replacement: string | null;
  /** The deprecation text clients see: GraphQL `deprecationReason`, OpenAPI `x-replaced-by` and description. */
  reason: string;
}

/** How long clients are told ahead: a sunset at least this many months after the deprecation lands. */
export const MINIMUM_NOTICE_MONTHS = 6;

/** A real calendar date written `YYYY-MM-DD` (RFC 3339 full-date). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

export function addMonths(day: string, months: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.toISOString().slice(0, 10);
}

/** Today's date in UTC, `YYYY-MM-DD`. */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}
