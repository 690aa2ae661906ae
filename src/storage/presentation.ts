import { isStorageContentType, type StorageContentType } from './uploads.js';

/**
 * How a stored object is handed to browsers. The objects are served from the site's own origin, next to its sign-in
 * pages and cookies, so none may ever run there as active content (a script, an HTML or SVG document):
 * - every answer carries `X-Content-Type-Options: nosniff` and the sandboxing CSP below, so even a file that is not
 *   what its media type says is never sniffed into HTML, and a document opened from here has no origin and runs
 *   nothing;
 * - formats the browser only displays (images, audio, video, plain text) are shown inline; the rest (PDF, which the
 *   browser's viewer would script, and ZIP) is a download (`Content-Disposition: attachment`);
 * - a stored media type outside the upload allowlist (only a row written by hand can have one) is served as
 *   `application/octet-stream`, a download, never under its own type.
 */
export const OBJECT_CSP = "sandbox; default-src 'none'";

type Disposition = 'inline' | 'attachment';

/** A decision for every allowed media type: adding one to the allowlist does not compile until it has one. */
const DISPOSITIONS = {
  'image/png': 'inline',
  'image/jpeg': 'inline',
  'image/gif': 'inline',
  'image/webp': 'inline',
  'image/avif': 'inline',
  'application/pdf': 'attachment',
  'audio/mpeg': 'inline',
  'audio/mp4': 'inline',
  'audio/ogg': 'inline',
  'audio/wav': 'inline',
  'audio/webm': 'inline',
  'video/mp4': 'inline',
  'video/webm': 'inline',
  'video/quicktime': 'inline',
  'application/zip': 'attachment',
  'text/plain': 'inline',
  'text/csv': 'inline',
  'text/markdown': 'inline',
} as const satisfies Record<StorageContentType, Disposition>;

export interface Presentation {
  /** The Content-Type header. */
  contentType: string;
  disposition: Disposition;
  /** The extension the download's file name ends with. */
  extension: string;
}

/**
 * The headers' view of a stored object. Text is labelled UTF-8: without a charset a browser guesses the encoding
 * (windows-1252 for most), which garbles UTF-8 text, and guessing is what encoding-based script attacks relied on.
 */
export function presentationOf(storedType: string, objectKey: string): Presentation {
  if (!isStorageContentType(storedType)) return { contentType: 'application/octet-stream', disposition: 'attachment', extension: 'bin' };
  const extension = /\.([a-z0-9]+)$/.exec(objectKey)?.[1] ?? 'bin';
  return { contentType: storedType.startsWith('text/') ? `${storedType}; charset=utf-8` : storedType, disposition: DISPOSITIONS[storedType], extension };
}

/**
 * The name a browser saves the object under: the name it was uploaded as, ending in the object's own extension.
 * Control characters are dropped again (uploads never store them, a row written by hand might): a line break would
 * end the header.
 */
export function downloadName(filename: string | null, extension: string): string {
  const base = filename?.replace(/\p{Cc}/gu, '').trim() || 'file';
  return base.toLowerCase().endsWith(`.${extension}`) ? base : `${base}.${extension}`;
}
