import { createHash } from 'node:crypto';
import type { ApplicationFilters, ApplicationKeyset, ApplicationSortField } from '../../../clients/applications.js';
import { ValidationError } from '../../../shared/errors.js';

/**
 * The opaque `cursor` of listOAuthApplications: base64url JSON of the last row's keyset, the sort it belongs to and a
 * fingerprint of the filters. A cursor reused with another sort or other filters, or that is not one of ours, is
 * 400 `invalid_cursor` (docs/admin-api.md, Pagination).
 */

interface CursorPayload {
  v: 1;
  sort: string;
  filters: string;
  value: number | string;
  id: number;
}

function fingerprint(filters: ApplicationFilters): string {
  const canonical = JSON.stringify([filters.audience ?? null, filters.confidential ?? null, filters.kind ?? null, filters.reviewed ?? null]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export function encodeCursor(sort: string, filters: ApplicationFilters, keyset: ApplicationKeyset): string {
  const payload: CursorPayload = { v: 1, sort, filters: fingerprint(filters), value: keyset.value, id: keyset.id };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

function invalidCursor(message: string): ValidationError {
  return new ValidationError(message, [], 'invalid_cursor');
}

export function decodeCursor(cursor: string, sort: string, field: ApplicationSortField, filters: ApplicationFilters): ApplicationKeyset {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('The cursor is not one this API issued. Start again without a cursor.');
  }
  const candidate = payload as Partial<CursorPayload> | null;
  const valueMatches = field === 'name' ? typeof candidate?.value === 'string' : typeof candidate?.value === 'number' && Number.isFinite(candidate.value);
  if (typeof candidate !== 'object' || candidate === null || candidate.v !== 1 || !valueMatches || !Number.isSafeInteger(candidate.id) || (candidate.id ?? 0) < 1) {
    throw invalidCursor('The cursor is not one this API issued. Start again without a cursor.');
  }
  if (candidate.sort !== sort || candidate.filters !== fingerprint(filters)) {
    throw invalidCursor('The cursor belongs to a listing with another sort or other filters. Repeat the request with the same sort and filters, or start again without a cursor.');
  }
  return { value: candidate.value as number | string, id: candidate.id as number };
}
