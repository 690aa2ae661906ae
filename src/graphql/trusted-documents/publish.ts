import { setImmediate as nextTurn } from 'node:timers/promises';
import type { OAuthClient } from '../../clients/client.js';
import { requireApplication } from '../../clients/applications.js';
import type { Database } from '../../db/connection.js';
import { isUniqueViolation, type Queryable } from '../../db/queries.js';
import { withTransaction } from '../../db/transaction.js';
import {
  clientTrustedDocumentIds,
  deleteTrustedDocuments,
  insertTrustedDocuments,
  listClientTrustedDocuments,
  normalizeDocumentId,
  type NewTrustedDocument,
  type TrustedDocumentRecord,
} from '../../data/trusted-documents.js';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../../shared/errors.js';
import type { VariantProfile } from '../../variant.js';
import { pointerTo, readManifest } from './manifest.js';
import { checkDocument, validationSchemaFor } from './validation.js';

/**
 * Publishing a client's trusted documents (docs/trusted-documents.md): a manifest is checked whole (shape, bounds,
 * hashes, then every document against the deployment's member schema and limits) and stored only when every
 * document passes, in one transaction. Publishing is idempotent: a document the client holds already keeps its
 * publication time. With `replace`, the client's documents the manifest leaves out are removed.
 */

/** 400 `invalid_trusted_documents`: the manifest with every reason it was refused; nothing was stored. */
export class TrustedDocumentsRefusedError extends ValidationError {
  constructor(problems: readonly FieldProblem[]) {
    super(`The manifest was refused and nothing was published: ${problems.length} problem${problems.length === 1 ? '' : 's'}.`, problems, 'invalid_trusted_documents');
  }
}

/** The client whose documents these are: a client of this site (404 otherwise) that can hold member tokens. */
export async function requireDocumentClient(db: Queryable, siteId: number, clientId: string): Promise<OAuthClient> {
  const { client } = await requireApplication(db, siteId, clientId);
  if (client.kind === 'service') {
    // A service client calls the admin API as itself (RFC 6749 4.4) and never the member API: it has no documents to run.
    throw new ConflictError(`${client.clientId} is a service client: it never calls the member GraphQL API, so it has no trusted documents.`, 'application_is_service_client');
  }
  return client;
}

export interface PublishOptions {
  /** Remove the client's documents that the manifest does not hold. */
  replace?: boolean | undefined;
}

export interface PublishOutcome {
  client: OAuthClient;
  /** The ids published by this call. */
  added: string[];
  /** How many of the manifest's documents the client held already. */
  unchanged: number;
  /** The ids removed by `replace`. */
  removed: string[];
  /** The client's documents afterwards. */
  documents: TrustedDocumentRecord[];
}

/**
 * Documents validated between two yields to the event loop: a full manifest takes seconds of validation, which must
 * not stall the other requests this process serves meanwhile (each document takes a millisecond or a few).
 */
const DOCUMENTS_PER_TURN = 20;

/** The manifest's documents checked against the schema, or the TrustedDocumentsRefusedError listing every problem. */
export async function checkedManifest(variant: VariantProfile, manifest: unknown): Promise<NewTrustedDocument[]> {
  const { entries, problems } = readManifest(manifest);
  const schema = validationSchemaFor(variant);
  const documents: NewTrustedDocument[] = [];
  for (const [index, entry] of entries.entries()) {
    if (index > 0 && index % DOCUMENTS_PER_TURN === 0) await nextTurn();
    const check = checkDocument(schema, entry.document);
    if (check.valid) {
      documents.push({ documentId: entry.documentId, document: entry.document, operationNames: check.operationNames });
      continue;
    }
    const named = check.operationNames.length > 0 ? `operation ${check.operationNames.join(', ')}` : 'anonymous operation';
    for (const error of check.errors) problems.push({ pointer: pointerTo(entry.key), message: `${entry.documentId} (${named}): ${error}` });
  }
  if (problems.length > 0) throw new TrustedDocumentsRefusedError(problems);
  return documents;
}

async function storeDocuments(db: Database, siteId: number, clientRef: number, documents: readonly NewTrustedDocument[], replace: boolean): Promise<{ added: string[]; unchanged: number; removed: string[] }> {
  return withTransaction(db, async (trx) => {
    const held = new Set(await clientTrustedDocumentIds(trx, siteId, clientRef));
    const fresh = documents.filter((document) => !held.has(document.documentId));
    await insertTrustedDocuments(trx, siteId, clientRef, fresh, new Date());
    const kept = new Set(documents.map((document) => document.documentId));
    const removed = replace ? [...held].filter((id) => !kept.has(id)).sort() : [];
    await deleteTrustedDocuments(trx, siteId, clientRef, removed);
    return { added: fresh.map((document) => document.documentId), unchanged: documents.length - fresh.length, removed };
  });
}

/** Checks `manifest` and stores its documents for one client of the site; nothing is stored unless all pass. */
export async function publishTrustedDocuments(db: Database, variant: VariantProfile, siteId: number, clientId: string, manifest: unknown, options: PublishOptions = {}): Promise<PublishOutcome> {
  const client = await requireDocumentClient(db, siteId, clientId);
  const documents = await checkedManifest(variant, manifest);
  const replace = options.replace === true;
  let stored: Awaited<ReturnType<typeof storeDocuments>>;
  try {
    stored = await storeDocuments(db, siteId, client.ref, documents, replace);
  } catch (error) {
    // Another publish of the same document committed between our read and our insert: run again, now seeing it.
    if (!isUniqueViolation(error)) throw error;
    stored = await storeDocuments(db, siteId, client.ref, documents, replace);
  }
  return { client, ...stored, documents: await listClientTrustedDocuments(db, siteId, client.ref) };
}

/** One client's documents, oldest first. */
export async function clientTrustedDocuments(db: Queryable, siteId: number, clientId: string): Promise<{ client: OAuthClient; documents: TrustedDocumentRecord[] }> {
  const client = await requireDocumentClient(db, siteId, clientId);
  return { client, documents: await listClientTrustedDocuments(db, siteId, client.ref) };
}

/** The stored form of a document id given by a person or a path (400 when it is no document id at all). */
export function requireDocumentId(raw: string, pointer = '/documentId'): string {
  const id = normalizeDocumentId(raw);
  if (id === null) {
    const message = `"${raw}" is not a document id: expected sha256:<64 hex digits>, sha1:<40 hex digits> or the bare hex digits`;
    throw new ValidationError(message, [{ pointer, message }]);
  }
  return id;
}

/** Removes one of a client's documents (404 when the client has none with that id); the client can no longer send it. */
export async function removeTrustedDocument(db: Database, siteId: number, clientId: string, rawDocumentId: string): Promise<{ client: OAuthClient; documentId: string }> {
  const client = await requireDocumentClient(db, siteId, clientId);
  const documentId = requireDocumentId(rawDocumentId);
  const deleted = await withTransaction(db, (trx) => deleteTrustedDocuments(trx, siteId, client.ref, [documentId]));
  if (deleted === 0) throw new NotFoundError(`${client.clientId} has no trusted document ${documentId}.`, 'not_found');
  return { client, documentId };
}
