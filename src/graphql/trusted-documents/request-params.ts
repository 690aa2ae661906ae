import { createHash } from 'node:crypto';
import type { Request, RequestParams, Response as HttpResponse } from 'graphql-http';
import { normalizeDocumentId } from '../../data/trusted-documents.js';

/**
 * The request side of trusted documents (docs/trusted-documents.md, "Sending a registered operation"): a request may
 * name a registered document instead of sending its text, as the GraphQL over HTTP persisted-documents appendix does
 * (`documentId`, over GET and POST) and as Apollo's automatic persisted queries do
 * (`extensions.persistedQuery.sha256Hash` with `version: 1`). Everything else goes to graphql-http's own parser.
 */

/** What a request names a registered document by. */
export interface DocumentReference {
  /** The normalized id: `sha256:<64 hex>` or `sha1:<40 hex>`. */
  documentId: string;
  /** The document's text sent along with its id (Apollo's second attempt), its hash checked; null when only the id came. */
  query: string | null;
}

/** The reference of the parameters parsed here; the parameters object reaches onSubscribe unchanged. */
const references = new WeakMap<RequestParams, DocumentReference>();

/** The registered document a request names, or undefined for a request that sends a document's text. */
export function documentReferenceOf(params: RequestParams): DocumentReference | undefined {
  return references.get(params);
}

/** A request refused before GraphQL (the parameters are malformed): 400 with an `errors` entry, as graphql-http answers. */
function refused(code: string, message: string): HttpResponse {
  return [JSON.stringify({ errors: [{ message, extensions: { code } }] }), { status: 400, statusText: 'Bad Request', headers: { 'content-type': 'application/json; charset=utf-8' } }];
}

type Raw = Record<string, unknown>;

function isResponse(value: Raw | HttpResponse): value is HttpResponse {
  return Array.isArray(value);
}

function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The raw parameters of a GET whose query names a document, or undefined for graphql-http's parser. */
function getParams(url: string): Raw | HttpResponse | undefined {
  const search = url.split('?')[1];
  // Cheap test first: a request by text (the common case) pays for no second parse.
  if (search === undefined || (!search.includes('documentId') && !search.includes('persistedQuery'))) return undefined;
  const searchParams = new URLSearchParams(search);
  const raw: Raw = { documentId: searchParams.get('documentId') ?? undefined, query: searchParams.get('query') ?? undefined, operationName: searchParams.get('operationName') ?? undefined };
  for (const name of ['variables', 'extensions'] as const) {
    const value = searchParams.get(name);
    if (value === null || value === '') continue;
    try {
      raw[name] = JSON.parse(value) as unknown;
    } catch {
      return refused('BAD_REQUEST', `the ${name} parameter is not JSON`);
    }
  }
  return raw;
}

/** The raw parameters of a JSON POST whose body names a document, or undefined for graphql-http's parser (and its errors). */
function postParams(req: Request<unknown, unknown>): Raw | undefined {
  const header = 'get' in req.headers && typeof req.headers.get === 'function' ? req.headers.get('content-type') : (req.headers as Record<string, string | string[] | undefined>)['content-type'];
  const contentType = (typeof header === 'string' ? header : '').replace(/\s/g, '').toLowerCase().split(';')[0];
  if (contentType !== 'application/json' || typeof req.body !== 'string') return undefined;
  if (!req.body.includes('documentId') && !req.body.includes('persistedQuery')) return undefined;
  try {
    const data = JSON.parse(req.body) as unknown;
    return isObject(data) ? data : undefined;
  } catch {
    return undefined;
  }
}

/** The hash of a document text in the id's algorithm, as the id would write it. */
function idOfText(documentId: string, text: string): string {
  const algorithm = documentId.startsWith('sha1:') ? 'sha1' : 'sha256';
  return `${algorithm}:${createHash(algorithm).update(text, 'utf8').digest('hex')}`;
}

const ID_FORMS = 'sha256:<64 lowercase hex> (or a bare 64-hex sha256 or 40-hex sha1 hash)';

/** The id Apollo's extension names, a refusal, or null when the extension is absent. */
function apolloDocumentId(extensions: unknown): string | HttpResponse | null {
  if (!isObject(extensions) || extensions.persistedQuery === undefined) return null;
  const persisted = extensions.persistedQuery;
  if (!isObject(persisted) || persisted.version !== 1) return refused('INVALID_DOCUMENT_ID', 'extensions.persistedQuery must be { "version": 1, "sha256Hash": "<64 hex>" }');
  const hash = persisted.sha256Hash;
  if (typeof hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hash)) return refused('INVALID_DOCUMENT_ID', 'extensions.persistedQuery.sha256Hash must be 64 hexadecimal characters');
  return `sha256:${hash.toLowerCase()}`;
}

/**
 * graphql-http's `parseRequestParams` for requests that name a registered document: their parameters, with the
 * reference kept for onSubscribe; a 400 for malformed ones (an id of no known form, an id and a text whose hashes
 * differ, two ids that differ); undefined for every other request, which graphql-http's own parser reads.
 */
export function parseTrustedDocumentParams(req: Request<unknown, unknown>): RequestParams | HttpResponse | undefined {
  const raw = req.method === 'GET' ? getParams(req.url) : req.method === 'POST' ? postParams(req) : undefined;
  if (raw === undefined || isResponse(raw)) return raw;
  const apollo = apolloDocumentId(raw.extensions);
  if (typeof apollo !== 'string' && apollo !== null) return apollo;
  // A null documentId is an absent one, as graphql-http reads a null query.
  const sentId = raw.documentId ?? null;
  if (sentId === null && apollo === null) return undefined;

  let documentId = apollo;
  if (sentId !== null) {
    const normalized = typeof sentId === 'string' ? normalizeDocumentId(sentId) : null;
    if (normalized === null) return refused('INVALID_DOCUMENT_ID', `documentId must be ${ID_FORMS}`);
    if (apollo !== null && apollo !== normalized) return refused('DOCUMENT_ID_MISMATCH', 'documentId and extensions.persistedQuery.sha256Hash name different documents');
    documentId = normalized;
  }
  if (documentId === null) return undefined;

  if (raw.query !== undefined && raw.query !== null && typeof raw.query !== 'string') return refused('BAD_REQUEST', 'query must be a string');
  const query = typeof raw.query === 'string' && raw.query !== '' ? raw.query : null;
  // A text sent with its id must be the document the id names (the appendix's advice for a client that sends both).
  if (query !== null && idOfText(documentId, query) !== documentId) return refused('DOCUMENT_ID_MISMATCH', `the query sent is not the document ${documentId}: its hash differs`);
  if (raw.variables !== undefined && raw.variables !== null && !isObject(raw.variables)) return refused('BAD_REQUEST', 'variables must be an object');
  if (raw.operationName !== undefined && raw.operationName !== null && typeof raw.operationName !== 'string') return refused('BAD_REQUEST', 'operationName must be a string');
  if (raw.extensions !== undefined && raw.extensions !== null && !isObject(raw.extensions)) return refused('BAD_REQUEST', 'extensions must be an object');

  const params: RequestParams = {
    query: query ?? '',
    // The appendix: an empty operationName is the same as none.
    operationName: typeof raw.operationName === 'string' && raw.operationName !== '' ? raw.operationName : null,
    variables: isObject(raw.variables) ? raw.variables : null,
    extensions: isObject(raw.extensions) ? raw.extensions : null,
  };
  references.set(params, { documentId, query });
  return params;
}
