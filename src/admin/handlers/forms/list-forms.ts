import { listForms as listSiteForms } from '../../../content/forms.js';
import type { AdminHandler } from '../../api/types.js';
import { formRepresentation } from './representation.js';

/** GET /forms (forms:read): one keyset page of the site's forms with their fields and response counts. */
export const listForms: AdminHandler<'listForms'> = async ({ db, site, query }) => {
  const page = await listSiteForms(db, site.id, query);
  return { status: 200, body: { data: page.forms.map(formRepresentation), nextCursor: page.nextCursor } };
};
