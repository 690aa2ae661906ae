import { listFormResponses as listResponses } from '../../../content/forms.js';
import type { AdminHandler } from '../../api/types.js';
import { formResponseRepresentation } from './representation.js';

/** GET /forms/{formId}/responses (forms:read): one keyset page of a form's responses, newest first by default. */
export const listFormResponses: AdminHandler<'listFormResponses'> = async ({ db, site, path, query }) => {
  const page = await listResponses(db, site.id, path.formId, query);
  return { status: 200, body: { data: page.responses.map(formResponseRepresentation), nextCursor: page.nextCursor } };
};
