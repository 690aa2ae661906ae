import { createHash } from 'node:crypto';
import { normalizeDocumentId } from '../../data/trusted-documents.js';
import type { FieldProblem } from '../../shared/errors.js';
import { TRUSTED_DOCUMENT_LIMITS } from './limits.js';

/**
 * A trusted-documents manifest in the format graphql-codegen's client preset writes with `persistedDocuments: true`
 * (`persisted-documents.json`): one JSON object whose keys are the documents' hashes and whose values are the
 * documents' exact texts. A key may be a bare hex hash (sha256 for 64 digits, sha1 for 40) or carry its algorithm
 * (`sha256:<hex>`), as the GraphQL over HTTP persisted-documents convention writes a document id.
 */

export interface ManifestEntry {
  /** The key as the manifest writes it (problems point at it). */
  key: string;
  /** The normalized id: `sha256:<hex>` or `sha1:<hex>`. */
  documentId: string;
  document: string;
}

export interface ReadManifest {
  entries: ManifestEntry[];
  /** Every reason the manifest is refused, each at its key (`/<key>`, RFC 6901), or at `` for the whole manifest. */
  problems: FieldProblem[];
}

/** RFC 6901: `~` and `/` are escaped in a pointer's reference token. */
export function pointerTo(key: string): string {
  return `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** The hash a document id names, of the document's UTF-8 text: what the id must equal. */
export function documentIdOf(document: string, algorithm: 'sha256' | 'sha1'): string {
  return `${algorithm}:${createHash(algorithm).update(document, 'utf8').digest('hex')}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const kb = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`;

/**
 * Checks a manifest's shape, bounds and hashes (not yet the documents against the schema): every problem is listed,
 * so one answer tells the client everything to fix. Keys naming the same id (bare and prefixed) count once.
 */
export function readManifest(value: unknown): ReadManifest {
  if (!isRecord(value)) {
    return { entries: [], problems: [{ pointer: '', message: 'must be a JSON object mapping each document hash to its document text (graphql-codegen persisted-documents.json)' }] };
  }
  const keys = Object.keys(value);
  const problems: FieldProblem[] = [];
  const { maxDocuments, maxDocumentBytes, maxTotalBytes } = TRUSTED_DOCUMENT_LIMITS;
  if (keys.length === 0) problems.push({ pointer: '', message: 'holds no documents' });
  if (keys.length > maxDocuments) {
    return { entries: [], problems: [{ pointer: '', message: `holds ${keys.length.toLocaleString('en-US')} documents; at most ${maxDocuments.toLocaleString('en-US')} may be published at once` }] };
  }
  const entries = new Map<string, ManifestEntry>();
  let totalBytes = 0;
  for (const key of keys) {
    const pointer = pointerTo(key);
    const document = value[key];
    if (typeof document !== 'string') {
      problems.push({ pointer, message: 'must be the document text (a string)' });
      continue;
    }
    const bytes = Buffer.byteLength(document, 'utf8');
    totalBytes += bytes;
    if (bytes > maxDocumentBytes) {
      problems.push({ pointer, message: `the document is ${kb(bytes)}; a document may have at most ${kb(maxDocumentBytes)}` });
      continue;
    }
    const documentId = normalizeDocumentId(key);
    if (documentId === null) {
      problems.push({ pointer, message: 'is not a document hash: expected sha256:<64 hex digits>, 64 hex digits (sha256) or 40 hex digits (sha1)' });
      continue;
    }
    const algorithm = documentId.startsWith('sha1:') ? 'sha1' : 'sha256';
    const actual = documentIdOf(document, algorithm);
    if (actual !== documentId) {
      problems.push({ pointer, message: `does not match the document: its ${algorithm} is ${actual} (the hash is of the exact document text, UTF-8)` });
      continue;
    }
    entries.set(documentId, { key, documentId, document });
  }
  if (totalBytes > maxTotalBytes) problems.push({ pointer: '', message: `the documents hold ${kb(totalBytes)} together; a manifest may hold at most ${kb(maxTotalBytes)}` });
  return { entries: [...entries.values()], problems };
}
