import { removeTrustedDocument } from '../../../graphql/trusted-documents/publish.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /oauth-applications/{clientId}/trusted-documents/{documentId} (school:write): the client can no longer send it. */
export const deleteTrustedDocument: AdminHandler<'deleteTrustedDocument'> = async ({ db, site, path, log }) => {
  const { client, documentId } = await removeTrustedDocument(db, site.id, path.clientId, path.documentId);
  log.info({ event: 'trusted_document_removed', clientRef: client.ref, documentId }, 'trusted document removed');
  return { status: 204 };
};
