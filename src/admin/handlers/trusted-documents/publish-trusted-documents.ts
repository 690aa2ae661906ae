import { publishTrustedDocuments as publish, TrustedDocumentsRefusedError } from '../../../graphql/trusted-documents/publish.js';
import { AdminProblem } from '../../api/problems.js';
import type { AdminHandler } from '../../api/types.js';
import { trustedDocumentRepresentation } from './representation.js';

/**
 * PUT /oauth-applications/{clientId}/trusted-documents (school:write): publishes a manifest whole or not at all. A
 * refused manifest is 422 (RFC 9110 15.5.21: well-formed, but its content cannot be processed), one error per problem.
 */
export const publishTrustedDocuments: AdminHandler<'publishTrustedDocuments'> = async ({ db, site, variant, path, body, log }) => {
  try {
    const outcome = await publish(db, variant, site.id, path.clientId, body.documents, { replace: body.replace });
    log.info({ event: 'trusted_documents_published', clientRef: outcome.client.ref, added: outcome.added.length, removed: outcome.removed.length }, 'trusted documents published');
    return {
      status: 200,
      body: { clientId: outcome.client.clientId, added: outcome.added, unchanged: outcome.unchanged, removed: outcome.removed, data: outcome.documents.map(trustedDocumentRepresentation) },
    };
  } catch (error) {
    if (!(error instanceof TrustedDocumentsRefusedError)) throw error;
    const errors = error.problems.map(({ pointer, message }) => ({ pointer: `/documents${pointer}`, message }));
    throw new AdminProblem(422, error.code, error.message, errors);
  }
};
