import type { ToolContext } from '../session.js';

/**
 * A moment as a person at the school reads it ("Thursday, 26 November 2026 at 09:30 (Asia/Taipei)"): a plan for "this
 * week" needs to know which day it is, and the attached data gives times in UTC. Defaults to the request's clock.
 */
export function atSchool(context: ToolContext, moment: Date = context.session.now): string {
  const { timezone } = context.site;
  const format = (timeZone: string) =>
    new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(moment);
  try {
    return `${format(timezone)} (${timezone})`;
  } catch {
    // A time zone this Node does not know: UTC is still right, just less friendly.
    return `${format('UTC')} (UTC)`;
  }
}
