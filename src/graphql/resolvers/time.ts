/** A `DateTime` value (schema/base.graphql): RFC 3339 in UTC, whole seconds, `Z` suffix, e.g. `2025-03-01T09:30:00Z`. */
export function dateTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function optionalDateTime(date: Date | null): string | null {
  return date === null ? null : dateTime(date);
}

/** Unix seconds of an instant, for fields the spec gives in unix seconds (e.g. `startedAt`). */
export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
