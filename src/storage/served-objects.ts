import { timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import { requireDate, type Database } from '../db/connection.js';
import type { ByteRange } from './byte-range.js';
import { CHUNK_BYTES, objectKeyOf } from './uploads.js';

/**
 * Reading uploaded objects for their public URLs (src/uploads/serve.ts). Only an upload that has its bytes is served;
 * a pending, expired or deleted one, or another site's, is not found. The media type is read as stored, not checked
 * against the allowlist: src/storage/presentation.ts decides how an unexpected one is served, where a read that throws
 * would answer 500.
 */

export interface ServedObject {
  id: number;
  objectKey: string;
  filename: string | null;
  storedType: string;
  sizeBytes: number;
  version: number;
  uploadedAt: Date;
}

interface ServedRow {
  id: number;
  object_key: string;
  filename: string | null;
  content_type: string;
  size_bytes: number | string;
  version: number;
  uploaded_at: unknown;
}

/** Chunks read per query: 768 KiB, so a download holds little memory however large the object. */
const CHUNKS_PER_READ = 16;

/** Equal keys, compared in constant time: the random file name is what keeps the URL unguessable. */
function sameKey(stored: string, requested: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(requested);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The site's uploaded object with this id and file name (the public URL's two segments), or null. */
export async function findServedObject(db: Database, siteId: number, uploadId: number, fileName: string): Promise<ServedObject | null> {
  const row = (await db('storage_uploads')
    .where({ id: uploadId, site_id: siteId, state: 'uploaded' })
    .first(['id', 'object_key', 'filename', 'content_type', 'size_bytes', 'version', 'uploaded_at'])) as ServedRow | undefined;
  if (!row || !sameKey(row.object_key, objectKeyOf(siteId, fileName))) return null;
  return {
    id: Number(row.id),
    objectKey: row.object_key,
    filename: row.filename,
    storedType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    version: Number(row.version),
    uploadedAt: requireDate(row.uploaded_at),
  };
}

async function* rangeChunks(db: Database, object: ServedObject, range: ByteRange): AsyncGenerator<Buffer> {
  const lastSeq = Math.floor(range.last / CHUNK_BYTES);
  for (let seq = Math.floor(range.first / CHUNK_BYTES); seq <= lastSeq; seq += CHUNKS_PER_READ) {
    const until = Math.min(seq + CHUNKS_PER_READ - 1, lastSeq);
    const rows = (await db('storage_upload_chunks').where({ upload_id: object.id }).whereBetween('seq', [seq, until]).orderBy('seq').select('seq', 'data')) as Array<{ seq: number; data: Buffer }>;
    // A chunk missing or of another length (the upload was deleted meanwhile): fail rather than send wrong bytes
    // under the Content-Length already sent; the connection is cut and the client sees an incomplete answer.
    if (rows.length !== until - seq + 1) throw new Error(`upload ${object.id} lacks chunks ${seq}-${until}`);
    for (const row of rows) {
      const offset = Number(row.seq) * CHUNK_BYTES;
      const data = Buffer.from(row.data);
      if (data.length !== Math.min(CHUNK_BYTES, object.sizeBytes - offset)) throw new Error(`upload ${object.id} has a chunk ${row.seq} of ${data.length} bytes`);
      yield data.subarray(Math.max(0, range.first - offset), range.last + 1 - offset);
    }
  }
}

/** The bytes of the range, read from the database a few chunks at a time as the client takes them (nothing before). */
export function objectByteStream(db: Database, object: ServedObject, range: ByteRange): Readable {
  return Readable.from(rangeChunks(db, object, range), { objectMode: false });
}
