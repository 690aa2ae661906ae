/**
 * Global ids of the member API's objects (docs/member-graphql.md, "Ids"): opaque strings, unique across types and
 * per type, so the same database row seen as two different types gets two different ids (a meeting is a
 * `ServiceMeeting` in a service's catalogue and a `ConsultingMeeting` among the viewer's own bookings; spec:
 * Consulting). Clients must only compare them for equality.
 *
 * Encoding (not a contract): base64url of `<Type>:<database id>`.
 */

/** Every type whose id goes through here. Variant A's types are listed too, so both engineers share one namespace. */
export const NODE_TYPES = [
  'Course',
  'Section',
  'Lecture',
  'DigitalProduct',
  'ConsultingService',
  'ConsultingSlot',
  'ServiceMeeting',
  'Event',
  'EventRegistration',
  'ConsultingMeeting',
  'StudyGroup',
  'Payment',
  'Notification',
] as const;

export type NodeType = (typeof NODE_TYPES)[number];

/** The opaque id of row `dbId` seen as `type`. */
export function encodeNodeId(type: NodeType, dbId: number): string {
  return Buffer.from(`${type}:${dbId}`, 'utf8').toString('base64url');
}

/**
 * The database id inside `id` when it is an id of `type`; null for anything else (another type's id, garbage), so a
 * caller can answer "not found" without telling a malformed id from an unknown one.
 */
export function decodeNodeId(type: NodeType, id: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return null;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const prefix = `${type}:`;
  if (!text.startsWith(prefix)) return null;
  const digits = text.slice(prefix.length);
  if (!/^[1-9]\d{0,15}$/.test(digits)) return null;
  const value = Number(digits);
  // Only the canonical spelling: base64 has several strings for one byte sequence.
  return Number.isSafeInteger(value) && encodeNodeId(type, value) === id ? value : null;
}
