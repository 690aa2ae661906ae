import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { requireDate, toDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { withTransaction } from '../db/transaction.js';

/**
 * Upload slots and the objects they store (the admin API's /storage/uploads, docs/admin-content.md).
 *
 * An operator reserves a slot for one file (name, media type from a closed allowlist, exact size up to 8 MiB), then
 * sends the bytes to the slot's upload URL before it expires. The bytes are stored in the database
 * (`storage_upload_chunks`, 48 KiB per row, migration 0010), so several server instances over one database share
 * every object and nothing touches local disk. The object key is random and site-scoped; only a sanitised extension
 * that fits the media type comes from the request. Uploaded objects are served at their public URL by
 * src/uploads/serve.ts.
 */

/** The largest file: well below MySQL's max_allowed_packet, and each insert carries only a few chunks anyway. */
export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;
/** How long a slot waits for its bytes. */
export const UPLOAD_TTL_MS = 15 * 60 * 1000;
/** Bytes per stored chunk: fits a BLOB column (64 KiB) on MySQL, and SQLite alike. */
export const CHUNK_BYTES = 48 * 1024;
/** Chunks per INSERT statement: 768 KiB of bytes, about 1.5 MiB as mysql2's hex literals. */
const CHUNKS_PER_INSERT = 16;

/** The allowed media types, each with the extensions an object key may carry (the first is the default). */
export const STORAGE_CONTENT_TYPES = {
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/avif': ['avif'],
  'application/pdf': ['pdf'],
  'audio/mpeg': ['mp3'],
  'audio/mp4': ['m4a', 'mp4'],
  'audio/ogg': ['ogg', 'oga', 'opus'],
  'audio/wav': ['wav'],
  'audio/webm': ['weba', 'webm'],
  'video/mp4': ['mp4', 'm4v'],
  'video/webm': ['webm'],
  'video/quicktime': ['mov'],
  'application/zip': ['zip'],
  'text/plain': ['txt', 'text', 'log'],
  'text/csv': ['csv'],
  'text/markdown': ['md', 'markdown'],
} as const satisfies Record<string, readonly [string, ...string[]]>;

export type StorageContentType = keyof typeof STORAGE_CONTENT_TYPES;
export type UploadState = 'pending' | 'uploaded' | 'expired';

export function isStorageContentType(value: string): value is StorageContentType {
  return Object.hasOwn(STORAGE_CONTENT_TYPES, value);
}

export interface StorageUpload {
  id: number;
  objectKey: string;
  filename: string | null;
  contentType: StorageContentType;
  sizeBytes: number;
  /** `pending` past `expiresAt` reads as `expired`. */
  state: UploadState;
  expiresAt: Date;
  uploadedAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface UploadRow {
  id: number;
  object_key: string;
  filename: string | null;
  content_type: string;
  size_bytes: number | string;
  state: string;
  expires_at: unknown;
  uploaded_at: unknown;
  version: number;
  created_at: unknown;
  updated_at: unknown;
}

const UPLOAD_COLUMNS = ['id', 'object_key', 'filename', 'content_type', 'size_bytes', 'state', 'expires_at', 'uploaded_at', 'version', 'created_at', 'updated_at'];

function uploadFromRow(row: UploadRow, now: Date): StorageUpload {
  if (!isStorageContentType(row.content_type)) throw new Error(`upload ${row.id} has the media type ${row.content_type}, which is not allowed`);
  const expiresAt = requireDate(row.expires_at);
  let state: UploadState = row.state === 'uploaded' ? 'uploaded' : row.state === 'expired' ? 'expired' : 'pending';
  if (state === 'pending' && expiresAt.getTime() <= now.getTime()) state = 'expired';
  return {
    id: Number(row.id),
    objectKey: row.object_key,
    filename: row.filename,
    contentType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    state,
    expiresAt,
    uploadedAt: toDate(row.uploaded_at),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

type Queryable = Database | Knex.Transaction;

export async function requireUpload(db: Queryable, siteId: number, uploadId: number, now = new Date()): Promise<StorageUpload> {
  const row = (await db('storage_uploads').where({ id: uploadId, site_id: siteId }).first(UPLOAD_COLUMNS)) as UploadRow | undefined;
  if (!row) throw new NotFoundError(`This site has no upload ${uploadId}.`);
  return uploadFromRow(row, now);
}

// --- Listing ----------------------------------------------------------------------------------------------------------

const UPLOAD_SORTS: SortColumns<'createdAt'> = { createdAt: { column: 'created_at', type: 'time' } };

export async function listUploads(db: Database, siteId: number, filters: { state?: UploadState | undefined }, query: ListQuery): Promise<{ uploads: StorageUpload[]; nextCursor: string | null }> {
  const now = new Date();
  const builder = db('storage_uploads').where({ site_id: siteId }).select(UPLOAD_COLUMNS);
  if (filters.state === 'uploaded') builder.andWhere('state', 'uploaded');
  else if (filters.state === 'pending') builder.andWhere('state', 'pending').andWhere('expires_at', '>', now);
  else if (filters.state === 'expired') {
    builder.andWhere((expired) => {
      expired.where('state', 'expired').orWhere((late) => late.where('state', 'pending').andWhere('expires_at', '<=', now));
    });
  }
  const page = await listPage<UploadRow, keyof typeof UPLOAD_SORTS>(builder, query, { sorts: UPLOAD_SORTS, defaultSort: '-createdAt', filters: { ...filters } });
  return { uploads: page.rows.map((row) => uploadFromRow(row, now)), nextCursor: page.nextCursor };
}

// --- Creating ---------------------------------------------------------------------------------------------------------

/** The extension of the file name when it is one the media type may carry, else the media type's default one. */
export function objectExtension(filename: string, contentType: StorageContentType): string {
  const allowed: readonly string[] = STORAGE_CONTENT_TYPES[contentType];
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(filename.trim());
  const given = match?.[1]?.toLowerCase();
  return given !== undefined && allowed.includes(given) ? given : (allowed[0] ?? 'bin');
}

/** The key of a site's object: the site's folder, then the object's file name (`<random>.<ext>`). */
export function objectKeyOf(siteId: number, fileName: string): string {
  return `sites/${siteId}/uploads/${fileName}`;
}

/** The last segment of an object key: what the object's public URL ends with. */
export function objectFileName(objectKey: string): string {
  return objectKey.slice(objectKey.lastIndexOf('/') + 1);
}

/** The file name as shown back: its last path segment, without control characters. */
function displayFilename(filename: string): string {
  const base = filename.split(/[/\\]/).at(-1) ?? filename;
  return base.replace(/\p{Cc}/gu, '').trim().slice(0, 255) || 'file';
}

export interface NewUpload {
  filename: string;
  contentType: StorageContentType;
  sizeBytes: number;
  /** The OAuth client the operator's token belongs to. */
  createdByClientRef?: number | undefined;
}

export async function createUpload(db: Database, siteId: number, input: NewUpload): Promise<StorageUpload> {
  if (!Number.isSafeInteger(input.sizeBytes) || input.sizeBytes < 1 || input.sizeBytes > MAX_UPLOAD_BYTES) throw new Error(`an upload of ${input.sizeBytes} bytes is out of range`);
  const now = new Date();
  const objectKey = objectKeyOf(siteId, `${randomBytes(16).toString('hex')}.${objectExtension(input.filename, input.contentType)}`);
  const [id] = await db('storage_uploads').insert({
    site_id: siteId,
    object_key: objectKey,
    filename: displayFilename(input.filename),
    content_type: input.contentType,
    size_bytes: input.sizeBytes,
    state: 'pending',
    expires_at: new Date(now.getTime() + UPLOAD_TTL_MS),
    uploaded_at: null,
    created_by_client_ref: input.createdByClientRef ?? null,
    version: 1,
    created_at: now,
    updated_at: now,
  });
  return requireUpload(db, siteId, Number(id), now);
}

// --- Uploading --------------------------------------------------------------------------------------------------------

/** 409 unless the slot still waits for its bytes: `upload_expired` or `upload_already_completed`. */
export function requireAwaitingBytes(upload: StorageUpload): void {
  if (upload.state === 'uploaded') throw new ConflictError(`Upload ${upload.id} already has its bytes. Create a new upload slot for another file.`, 'upload_already_completed');
  if (upload.state === 'expired') throw new ConflictError(`Upload ${upload.id} expired at ${upload.expiresAt.toISOString()}. Create a new upload slot.`, 'upload_expired');
}

/**
 * Stores the bytes of a pending slot and marks it uploaded, in one transaction that starts with a compare-and-set on
 * the state (and the expiry): of two concurrent uploads to one slot exactly one stores its bytes, the other gets 409.
 */
export async function storeUploadContent(db: Database, siteId: number, uploadId: number, bytes: Buffer): Promise<StorageUpload> {
  const now = new Date();
  await withTransaction(db, async (trx) => {
    const claimed = await trx('storage_uploads')
      .where({ id: uploadId, site_id: siteId, state: 'pending' })
      .andWhere('expires_at', '>', now)
      .update({ state: 'uploaded', uploaded_at: now, version: trx.raw('version + 1'), updated_at: now });
    if (claimed === 0) {
      requireAwaitingBytes(await requireUpload(trx, siteId, uploadId, now));
      throw new Error(`upload ${uploadId} could not be claimed`);
    }
    const upload = await requireUpload(trx, siteId, uploadId, now);
    if (upload.sizeBytes !== bytes.length) throw new Error(`upload ${uploadId} expects ${upload.sizeBytes} bytes, got ${bytes.length}`);
    const rows: Array<{ upload_id: number; seq: number; data: Buffer }> = [];
    for (let offset = 0, seq = 0; offset < bytes.length; offset += CHUNK_BYTES, seq += 1) {
      rows.push({ upload_id: uploadId, seq, data: bytes.subarray(offset, offset + CHUNK_BYTES) });
    }
    for (let index = 0; index < rows.length; index += CHUNKS_PER_INSERT) await trx('storage_upload_chunks').insert(rows.slice(index, index + CHUNKS_PER_INSERT));
  });
  return requireUpload(db, siteId, uploadId);
}

/** The stored bytes of an uploaded slot, or null while it has none. */
export async function readUploadContent(db: Queryable, siteId: number, uploadId: number): Promise<Buffer | null> {
  const upload = await requireUpload(db, siteId, uploadId);
  if (upload.state !== 'uploaded') return null;
  const chunks = (await db('storage_upload_chunks').where({ upload_id: uploadId }).orderBy('seq').select('data')) as Array<{ data: Buffer }>;
  return Buffer.concat(chunks.map((chunk) => Buffer.from(chunk.data)));
}

/** Deletes a slot in any state, with its bytes. */
export async function deleteUpload(db: Database, siteId: number, uploadId: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    await requireUpload(trx, siteId, uploadId);
    await trx('storage_upload_chunks').where({ upload_id: uploadId }).delete();
    await trx('storage_uploads').where({ id: uploadId, site_id: siteId }).delete();
  });
}
