/** The UTC days usage is counted by (docs/usage.md); no database code, so the CLI can load it at start. */

export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** The first UTC day of the `days` days that end today. */
export function firstDayOf(days: number, now: Date): string {
  return utcDay(new Date(now.getTime() - (days - 1) * 24 * 60 * 60 * 1000));
}
