/** Client ID Metadata Documents (spec, Authentication 5); see docs/discovery-and-registration.md. */
export { isMetadataDocumentClientId } from './client-id-url.js';
export { MetadataDocumentRefusedError, type RefusalReason } from './errors.js';
export { EXTRA_CA_ENV } from './extra-ca.js';
export { resolveMetadataDocumentClient, type MetadataDocumentOptions } from './resolve.js';
