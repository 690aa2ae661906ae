import { GraphQLError } from 'graphql';
import type { AccessTokenClient } from '../../oauth/tokens/verification.js';
import type { Site } from '../../sites/sites.js';

/**
 * The member API's refusals around trusted documents (docs/trusted-documents.md, "Sending a registered operation").
 * Both are GraphQL request errors, so their HTTP status follows the GraphQL over HTTP draft as every request error of
 * the endpoint does: 200 for `Accept: application/json`, 400 for `application/graphql-response+json`.
 */

/**
 * A document's text from a client whose kind the site lists in `trustedDocumentsRequiredFor`, or null when the site
 * lets this client send any document. Introspection is a document like any other: under the requirement it runs
 * only as a registered document.
 */
export function trustedDocumentRequired(site: Site, client: AccessTokenClient): GraphQLError | null {
  if (!site.trustedDocumentsRequiredFor.includes(client.kind)) return null;
  return new GraphQLError(
    `this school runs only registered documents for ${client.kind} clients (site setting trustedDocumentsRequiredFor): publish the operation for this client and send its documentId instead of the query text`,
    { extensions: { code: 'TRUSTED_DOCUMENT_REQUIRED', setting: 'trustedDocumentsRequiredFor', clientKind: client.kind } },
  );
}

/**
 * An id this client has not registered at this site (another client's id or another site's is answered alike, so the
 * answer tells nothing of other clients). PERSISTED_QUERY_NOT_FOUND is the code Apollo clients retry on with the full
 * text, which a site that does not require trusted documents then runs.
 */
export function registeredDocumentNotFound(documentId: string): GraphQLError {
  return new GraphQLError(`PersistedQueryNotFound: no document ${documentId} is registered for this client at this school`, {
    extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', documentId },
  });
}
