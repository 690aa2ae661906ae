import { requireForm } from '../../../content/forms.js';
import type { AdminHandler } from '../../api/types.js';
import { formRepresentation } from './representation.js';

/** GET /forms/{formId} (forms:read): one form of this site, its fields parsed, with its response count. */
export const getForm: AdminHandler<'getForm'> = async ({ db, site, path }) => {
  const form = await requireForm(db, site.id, path.formId);
  return { status: 200, body: formRepresentation(form) };
};
