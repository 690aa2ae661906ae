/** The first and last byte of a range, both included (as in `Content-Range: bytes first-last/size`). */
export interface ByteRange {
  first: number;
  last: number;
}

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/;

/**
 * The one byte range a `Range` header asks for (RFC 9110 14.2), clamped to the object's size:
 * - `null` when the whole object is to be sent: no header, another unit, several ranges, or a malformed one (a server
 *   may ignore a Range it does not support, 14.2);
 * - `'unsatisfiable'` when the range starts past the end, or asks for the last 0 bytes (416).
 * Several ranges would need a multipart answer; media players ask for one at a time.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  const match = header ? SINGLE_RANGE.exec(header.trim()) : null;
  if (!match) return null;
  const [, from = '', to = ''] = match;
  if (from === '' && to === '') return null;
  if (from === '') {
    // `bytes=-N`: the last N bytes.
    const suffix = Number(to);
    if (suffix === 0) return 'unsatisfiable';
    return { first: Math.max(0, size - suffix), last: size - 1 };
  }
  const first = Number(from);
  const last = to === '' ? Number.MAX_SAFE_INTEGER : Number(to);
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || last < first) return null;
  if (first >= size) return 'unsatisfiable';
  return { first, last: Math.min(last, size - 1) };
}
