/** `DateTime` values (schema/base.graphql). */
export { dateTime, optionalDateTime } from '../../shared/time.js';

/** Unix seconds of an instant, for fields the spec gives in unix seconds (e.g. `startedAt`). */
export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
