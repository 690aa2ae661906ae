import { isCalendarDate, todayUtc } from '../../deprecations/deprecation.js';
import { UsageError } from './sources.js';

/**
 * The date sunsets are compared with: `--today YYYY-MM-DD`, else CONTRACT_DIFF_TODAY, else today (UTC). Injectable so
 * a review (and the tests) can ask what the verdict will be on a given day.
 */
export function resolveToday(option: string | undefined, environment: NodeJS.ProcessEnv = process.env): string {
  const given = option ?? environment.CONTRACT_DIFF_TODAY;
  if (given === undefined || given === '') return todayUtc();
  if (!isCalendarDate(given)) throw new UsageError(`${given} is not a date (YYYY-MM-DD)`);
  return given;
}
