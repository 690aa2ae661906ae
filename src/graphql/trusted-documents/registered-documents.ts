import type { DocumentNode, GraphQLError } from 'graphql';
import { findTrustedDocument } from '../../data/trusted-documents.js';
import type { Queryable } from '../../db/queries.js';
import { LruCache } from '../../shared/lru-cache.js';
import type { MemberDocuments } from '../documents.js';

/** A registered document as the member API runs it: parsed and validated against the served schema, or the errors refusing it. */
export type RegisteredDocument = DocumentNode | readonly GraphQLError[];

export interface RegisteredDocuments {
  /**
   * One client's document at one site by its normalized id, parsed and validated; null when that client has none with
   * the id. A fresh cached entry is answered at once, without a promise: the common case of a request by id.
   */
  find(siteId: number, clientRef: number, documentId: string): RegisteredDocument | Promise<RegisteredDocument | null>;
}

interface Entry {
  document: RegisteredDocument;
  checkedAt: number;
}

/**
 * The registered documents this process has served, parsed and validated once, keyed by site, client and id, so a
 * request by id skips the lookup, the parse and the validation. An id is the hash of the document's text, so the text
 * under an id never changes; what can change is whether it is still registered: an entry older than `lifetimeMs` is
 * checked against the database again (one indexed read), so a document deleted on any instance stops being served
 * within that time. Unknown ids are not remembered, so a document published on another instance is served at once.
 * Concurrent misses of one key share one read.
 */
export function registeredDocuments(db: Queryable, documents: Pick<MemberDocuments, 'validated'>, lifetimeMs: number, capacity = 1000, clock: () => number = Date.now): RegisteredDocuments {
  const entries = new LruCache<string, Entry>(capacity);
  const reading = new Map<string, Promise<RegisteredDocument | null>>();

  async function read(key: string, siteId: number, clientRef: number, documentId: string, known: Entry | undefined): Promise<RegisteredDocument | null> {
    const checkedAt = clock();
    const record = await findTrustedDocument(db, siteId, clientRef, documentId);
    if (record === null) {
      entries.delete(key);
      return null;
    }
    const document = known?.document ?? documents.validated(record.document);
    entries.set(key, { document, checkedAt });
    return document;
  }

  return {
    find(siteId, clientRef, documentId) {
      const key = `${siteId} ${clientRef} ${documentId}`;
      const entry = entries.get(key);
      if (entry !== undefined && clock() - entry.checkedAt < lifetimeMs) return entry.document;
      const pending = reading.get(key);
      if (pending) return pending;
      const promise = read(key, siteId, clientRef, documentId, entry).finally(() => reading.delete(key));
      reading.set(key, promise);
      return promise;
    },
  };
}
