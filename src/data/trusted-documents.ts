import { parseJsonColumn, requireDate } from '../db/connection.js';
import type { Queryable } from '../db/queries.js';

/**
 * The `trusted_documents` table (docs/trusted-documents.md): the GraphQL documents a client published for a site,
 * one row per site, client and document id. The id is the hash of the document's exact text, so a document can never
 * change under its id; a client reaches only its own rows (every query names the site and the client).
 */

/** A row as the drivers answer it (MySQL may answer numbers as strings; times come as Date, string or number). */
interface TrustedDocumentRow {
  document_id: string;
  document: string;
  operation_names: unknown;
  published_at: unknown;
}

export interface TrustedDocumentRecord {
  /** `sha256:<64 lowercase hex>` or `sha1:<40 lowercase hex>`. */
  documentId: string;
  document: string;
  /** The operation names the document defines, in document order (anonymous operations are left out). */
  operationNames: string[];
  publishedAt: Date;
}

/** A trusted document with the client that published it (the usage export lists them per client). */
export interface SiteTrustedDocumentRecord extends TrustedDocumentRecord {
  clientRef: number;
  clientId: string;
  clientName: string;
  /** The client's kind: `vendor_platform`, `metadata_document` or `operator_created`. */
  clientKind: string;
}

/** A document to store: its normalized id, its text and its operation names. */
export interface NewTrustedDocument {
  documentId: string;
  document: string;
  operationNames: readonly string[];
}

const COLUMNS = ['document_id', 'document', 'operation_names', 'published_at'] as const;

function recordFromRow(row: TrustedDocumentRow): TrustedDocumentRecord {
  return {
    documentId: row.document_id,
    document: row.document,
    operationNames: parseJsonColumn<string[]>(row.operation_names),
    publishedAt: requireDate(row.published_at),
  };
}

const DOCUMENT_ID = /^(?:(sha256):([0-9a-f]{64})|(sha1):([0-9a-f]{40}))$/;
const BARE_SHA256 = /^[0-9a-f]{64}$/;
const BARE_SHA1 = /^[0-9a-f]{40}$/;

/**
 * The stored form of a document id a client or a manifest gives: `sha256:<hex>` or `sha1:<hex>` as is, a bare
 * 64-hex id as sha256 and a bare 40-hex id as sha1 (graphql-codegen's client preset writes bare hashes; the GraphQL
 * over HTTP persisted-documents convention prefixes the algorithm). Hex is compared lower-cased. Null if it is
 * neither.
 */
export function normalizeDocumentId(raw: string): string | null {
  const id = raw.trim().toLowerCase();
  if (DOCUMENT_ID.test(id)) return id;
  if (BARE_SHA256.test(id)) return `sha256:${id}`;
  if (BARE_SHA1.test(id)) return `sha1:${id}`;
  return null;
}

/** One client's document by id, or null: another client's or another site's document with that id is not found. */
export async function findTrustedDocument(db: Queryable, siteId: number, clientRef: number, documentId: string): Promise<TrustedDocumentRecord | null> {
  const row = (await db('trusted_documents')
    .where({ site_id: siteId, client_ref: clientRef, document_id: documentId })
    .first(...COLUMNS)) as TrustedDocumentRow | undefined;
  return row ? recordFromRow(row) : null;
}

/** One client's documents, oldest first. */
export async function listClientTrustedDocuments(db: Queryable, siteId: number, clientRef: number): Promise<TrustedDocumentRecord[]> {
  const rows = (await db('trusted_documents')
    .where({ site_id: siteId, client_ref: clientRef })
    .orderBy([{ column: 'published_at' }, { column: 'id' }])
    .select(...COLUMNS)) as TrustedDocumentRow[];
  return rows.map(recordFromRow);
}

/** Every document of a site with its client, by client then oldest first. */
export async function listSiteTrustedDocuments(db: Queryable, siteId: number): Promise<SiteTrustedDocumentRecord[]> {
  const rows = (await db('trusted_documents as d')
    .join('oauth_clients as c', 'c.id', 'd.client_ref')
    .where('d.site_id', siteId)
    .orderBy([{ column: 'c.client_id' }, { column: 'd.published_at' }, { column: 'd.id' }])
    .select(...COLUMNS.map((column) => `d.${column} as ${column}`), 'c.id as client_ref', 'c.client_id as client_id', 'c.name as client_name', 'c.kind as client_kind')) as Array<
    TrustedDocumentRow & { client_ref: number | string; client_id: string; client_name: string; client_kind: string }
  >;
  return rows.map((row) => Object.assign(recordFromRow(row), { clientRef: Number(row.client_ref), clientId: row.client_id, clientName: row.client_name, clientKind: row.client_kind }));
}

/** The ids of one client's documents. */
export async function clientTrustedDocumentIds(db: Queryable, siteId: number, clientRef: number): Promise<string[]> {
  const rows = (await db('trusted_documents').where({ site_id: siteId, client_ref: clientRef }).select('document_id')) as Array<{ document_id: string }>;
  return rows.map((row) => row.document_id);
}

/** Inserts documents the client does not hold yet (callers leave out those it holds: run inside a transaction). */
export async function insertTrustedDocuments(db: Queryable, siteId: number, clientRef: number, documents: readonly NewTrustedDocument[], publishedAt: Date): Promise<void> {
  // Batches keep each statement under SQLite's bound-variable limit and MySQL's packet size.
  const BATCH = 100;
  for (let start = 0; start < documents.length; start += BATCH) {
    await db('trusted_documents').insert(
      documents.slice(start, start + BATCH).map((document) => ({
        site_id: siteId,
        client_ref: clientRef,
        document_id: document.documentId,
        document: document.document,
        operation_names: JSON.stringify(document.operationNames),
        published_at: publishedAt,
      })),
    );
  }
}

/** Deletes the named documents of one client; answers how many were deleted. */
export async function deleteTrustedDocuments(db: Queryable, siteId: number, clientRef: number, documentIds: readonly string[]): Promise<number> {
  if (documentIds.length === 0) return 0;
  let deleted = 0;
  const BATCH = 500;
  for (let start = 0; start < documentIds.length; start += BATCH) {
    deleted += await db('trusted_documents')
      .where({ site_id: siteId, client_ref: clientRef })
      .whereIn('document_id', documentIds.slice(start, start + BATCH))
      .delete();
  }
  return deleted;
}
