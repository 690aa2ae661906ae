import type { components } from '../../../../generated/admin-api.js';
import type { TrustedDocumentRecord } from '../../../data/trusted-documents.js';

export type TrustedDocument = components['schemas']['TrustedDocument'];

export function trustedDocumentRepresentation(record: TrustedDocumentRecord): TrustedDocument {
  return { id: record.documentId, operationNames: record.operationNames, publishedAt: record.publishedAt.toISOString() };
}
