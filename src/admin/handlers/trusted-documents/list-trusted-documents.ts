import { clientTrustedDocuments } from '../../../graphql/trusted-documents/publish.js';
import type { AdminHandler } from '../../api/types.js';
import { trustedDocumentRepresentation } from './representation.js';

/** GET /oauth-applications/{clientId}/trusted-documents (school:read): the application's documents, oldest first. */
export const listTrustedDocuments: AdminHandler<'listTrustedDocuments'> = async ({ db, site, path }) => {
  const { client, documents } = await clientTrustedDocuments(db, site.id, path.clientId);
  return { status: 200, body: { clientId: client.clientId, data: documents.map(trustedDocumentRepresentation) } };
};
