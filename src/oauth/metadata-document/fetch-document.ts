import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import { guardedLookup, literalAddressProblem, PrivateAddressError } from './address-policy.js';
import { MetadataDocumentRefusedError } from './errors.js';
import { trustedCertificates } from './extra-ca.js';

/** A document answers in 5 s or not at all. */
export const DEFAULT_FETCH_TIMEOUT_MS = 5000;
/** Client metadata is a few hundred bytes; 64 KiB is generous and bounds what one client_id can make us read. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 64 * 1024;

export interface FetchOptions {
  /** The host is on the site's allowlist: its addresses may be private (an intranet document host). */
  allowPrivateAddresses: boolean;
  timeoutMs: number;
  maxBytes: number;
  /** Validators of the cached copy, for a conditional request (RFC 9110 13.1). */
  etag?: string | null;
  lastModified?: string | null;
  /** What is fetched, for error messages and the User-Agent; a Client ID Metadata Document unless set (a client's jwks_uri reuses this fetcher). */
  subject?: string;
  /** The Accept header; application/json unless set. */
  accept?: string;
}

const DEFAULT_SUBJECT = 'Client ID Metadata Document';
const subjectOf = (options: Pick<FetchOptions, 'subject'>) => options.subject ?? DEFAULT_SUBJECT;

export type FetchResult = { kind: 'document'; body: unknown; headers: IncomingHttpHeaders } | { kind: 'not_modified'; headers: IncomingHttpHeaders };

function requestHeaders(options: FetchOptions): Record<string, string> {
  return {
    Accept: options.accept ?? 'application/json',
    'Accept-Encoding': 'identity',
    'User-Agent': `schoolgate (OAuth ${subjectOf(options)} fetcher)`,
    ...(options.etag ? { 'If-None-Match': options.etag } : {}),
    ...(options.lastModified ? { 'If-Modified-Since': options.lastModified } : {}),
  };
}

function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

/** Turns a low-level failure (DNS, TCP, TLS, our own guard) into the refusal the OAuth endpoints report. */
function refusalFor(url: URL, error: unknown, options: FetchOptions): MetadataDocumentRefusedError {
  if (error instanceof MetadataDocumentRefusedError) return error;
  if (error instanceof PrivateAddressError) {
    return new MetadataDocumentRefusedError(
      'private_address',
      `the ${subjectOf(options)} host ${url.hostname} resolves to ${error.address}, a private or reserved address; such hosts are fetched only when the site allowlists them`,
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new MetadataDocumentRefusedError('fetch_failed', `the ${subjectOf(options)} at ${url.href} could not be fetched (${detail})`);
}

/** Checks the status line and headers before any body byte is read. */
function checkResponseHead(url: URL, response: IncomingMessage, options: FetchOptions): 'document' | 'not_modified' {
  const status = response.statusCode ?? 0;
  if (status === 304 && (options.etag || options.lastModified)) return 'not_modified';
  if (status >= 300 && status < 400) {
    const target = response.headers.location ? ` to ${response.headers.location}` : '';
    throw new MetadataDocumentRefusedError('redirect', `the ${subjectOf(options)} at ${url.href} answered with a redirect (HTTP ${status})${target}; redirects are not followed, serve it at that URL`);
  }
  if (status !== 200) throw new MetadataDocumentRefusedError('http_status', `the ${subjectOf(options)} at ${url.href} answered HTTP ${status}; only 200 is accepted`);
  if (!isJson(response.headers['content-type'])) {
    throw new MetadataDocumentRefusedError('invalid_document', `the ${subjectOf(options)} at ${url.href} is served as ${response.headers['content-type'] ?? 'no content type'}; it must be application/json`);
  }
  const length = Number(response.headers['content-length']);
  if (Number.isFinite(length) && length > options.maxBytes) throw tooLarge(url, options);
  return 'document';
}

function tooLarge(url: URL, options: FetchOptions): MetadataDocumentRefusedError {
  return new MetadataDocumentRefusedError('too_large', `the ${subjectOf(options)} at ${url.href} is larger than ${options.maxBytes} bytes`);
}

function parseBody(url: URL, chunks: Buffer[], options: FetchOptions): unknown {
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new MetadataDocumentRefusedError('invalid_document', `the ${subjectOf(options)} at ${url.href} is not valid JSON`);
  }
}

/**
 * GET the document (draft-ietf-oauth-client-id-metadata-document, "Client Information Discovery"): https only,
 * `Accept: application/json`, no redirects followed, 200 only (or 304 to a conditional request), at most `maxBytes`,
 * all within `timeoutMs`, connecting only to addresses the SSRF guard lets through.
 */
export function fetchMetadataDocument(url: URL, options: FetchOptions): Promise<FetchResult> {
  const literal = literalAddressProblem(url.hostname, options.allowPrivateAddresses);
  if (literal) return Promise.reject(refusalFor(url, literal, options));
  const ca = trustedCertificates();

  return new Promise<FetchResult>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const fail = (error: unknown) => finish(() => reject(refusalFor(url, error, options)));
    // One deadline for everything (DNS, connect, TLS, headers, body): a server trickling bytes cannot hold us.
    const timer = setTimeout(() => {
      const error = new MetadataDocumentRefusedError('timeout', `the ${subjectOf(options)} at ${url.href} did not arrive within ${options.timeoutMs} ms`);
      fail(error);
      request.destroy(error);
    }, options.timeoutMs);

    const request = https.request(url, {
      method: 'GET',
      headers: requestHeaders(options),
      lookup: guardedLookup(options.allowPrivateAddresses),
      // A fresh connection per fetch: a pooled socket would skip the guarded lookup.
      agent: false,
      ...(ca ? { ca } : {}),
    });
    request.on('error', fail);
    request.on('response', (response) => {
      let head: 'document' | 'not_modified';
      try {
        head = checkResponseHead(url, response, options);
      } catch (error) {
        fail(error);
        request.destroy();
        return;
      }
      if (head === 'not_modified') {
        response.resume();
        finish(() => resolve({ kind: 'not_modified', headers: response.headers }));
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > options.maxBytes) {
          fail(tooLarge(url, options));
          request.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        if (settled) return;
        try {
          const body = parseBody(url, chunks, options);
          finish(() => resolve({ kind: 'document', body, headers: response.headers }));
        } catch (error) {
          fail(error);
        }
      });
    });
    request.end();
  });
}
