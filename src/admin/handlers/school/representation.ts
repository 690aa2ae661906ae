import type { components } from '../../../../generated/admin-api.js';
import { TRUSTED_DOCUMENT_CLIENT_KINDS, type Site } from '../../../sites/sites.js';

export type School = components['schemas']['School'];
type TrustedDocumentClientKind = components['schemas']['TrustedDocumentClientKind'];

export function schoolRepresentation(site: Site): School {
  return {
    id: site.id,
    origin: site.origin,
    subdomain: site.subdomain,
    name: site.name,
    description: site.description,
    timezone: site.timezone,
    defaultCurrency: site.defaultCurrency,
    contactEmail: site.contactEmail,
    trustedDocumentsRequiredFor: TRUSTED_DOCUMENT_CLIENT_KINDS.filter((kind): kind is TrustedDocumentClientKind => site.trustedDocumentsRequiredFor.includes(kind)),
    createdAt: site.createdAt.toISOString(),
    updatedAt: site.updatedAt.toISOString(),
  };
}
