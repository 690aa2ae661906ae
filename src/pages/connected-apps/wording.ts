import type { ConnectedAppSource } from '../../clients/connected-apps.js';

/** Where an application came from, in the words the member's page and the admin area use. */
export const SOURCE_WORDING: Record<ConnectedAppSource, string> = {
  vendor_platform: 'A platform the school allows (vendor platform)',
  metadata_document: 'Identified by its own web address (client metadata document)',
  created_by_school: 'Created by the school',
  service: 'A service of the school',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A time to the hour, in UTC ("26 Nov 2026, 14:00 UTC"): last use is only kept to the hour. */
export function toTheHour(date: Date): string {
  const hour = String(date.getUTCHours()).padStart(2, '0');
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()] ?? ''} ${date.getUTCFullYear()}, ${hour}:00 UTC`;
}
