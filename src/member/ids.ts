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

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** The two base64url characters of every 12 bits. */
const BASE64URL_PAIRS = Array.from({ length: 4096 }, (_, bits) => `${BASE64URL.charAt(bits >> 6)}${BASE64URL.charAt(bits & 63)}`);

/**
 * base64url without padding (RFC 4648 5) of an ASCII text, as `Buffer.from(text).toString('base64url')` writes it. A
 * syllabus answers a thousand ids, and a Buffer for each cost about twice this.
 */
function base64urlOfAscii(text: string): string {
  let out = '';
  let i = 0;
  for (; i + 2 < text.length; i += 3) {
    const bits = (text.charCodeAt(i) << 16) | (text.charCodeAt(i + 1) << 8) | text.charCodeAt(i + 2);
    out += `${BASE64URL_PAIRS[bits >> 12] as string}${BASE64URL_PAIRS[bits & 4095] as string}`;
  }
  const rest = text.length - i;
  if (rest === 1) out += BASE64URL_PAIRS[text.charCodeAt(i) << 4] as string;
  else if (rest === 2) {
    const bits = (text.charCodeAt(i) << 16) | (text.charCodeAt(i + 1) << 8);
    out += `${BASE64URL_PAIRS[bits >> 12] as string}${BASE64URL.charAt((bits >> 6) & 63)}`;
  }
  return out;
}

/** The opaque id of row `dbId` seen as `type`. */
export function encodeNodeId(type: NodeType, dbId: number): string {
  // A type name and a number's digits are ASCII (one byte each in UTF-8).
  return base64urlOfAscii(`${type}:${dbId}`);
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
