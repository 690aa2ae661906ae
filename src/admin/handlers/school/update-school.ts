import { ValidationError, type FieldProblem } from '../../../shared/errors.js';
import { canonicalTimeZone } from '../../../shared/time.js';
import { getSite, updateSite, type SiteSettings } from '../../../sites/sites.js';
import { etagOf, requireCurrentVersion, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { schoolRepresentation } from './representation.js';
import { isCurrencyCode } from '../../../shared/money.js';

/**
 * PATCH /school (school:write): a JSON Merge Patch of the writable settings, applied only if If-Match names the
 * current version (compare-and-set in the UPDATE itself, so two operators never overwrite each other).
 */
export const updateSchool: AdminHandler<'updateSchool'> = async ({ db, site, headers, body }) => {
  const expectedVersion = versionFromIfMatch(headers['If-Match']);
  const settings: SiteSettings = {};
  const problems: FieldProblem[] = [];
  if (body.name !== undefined) {
    if (body.name.trim() === '') problems.push({ pointer: '/name', message: 'must not be blank' });
    else settings.name = body.name.trim();
  }
  if (body.description !== undefined) settings.description = body.description;
  if (body.timezone !== undefined) {
    const timezone = canonicalTimeZone(body.timezone);
    if (timezone === null) problems.push({ pointer: '/timezone', message: `is not an IANA time zone this server knows (e.g. "Asia/Taipei" or "UTC")` });
    else settings.timezone = timezone;
  }
  if (body.defaultCurrency !== undefined) {
    if (!isCurrencyCode(body.defaultCurrency)) problems.push({ pointer: '/defaultCurrency', message: 'is not an ISO 4217 currency code' });
    else settings.defaultCurrency = body.defaultCurrency;
  }
  if (body.contactEmail !== undefined) settings.contactEmail = body.contactEmail;
  // The contract's enum and uniqueItems checked the kinds; the stored order is the canonical one.
  if (body.trustedDocumentsRequiredFor !== undefined) settings.trustedDocumentsRequiredFor = body.trustedDocumentsRequiredFor;
  if (problems.length > 0) throw new ValidationError('The school settings are not valid.', problems);
  if (Object.keys(settings).length === 0) {
    const current = await getSite(db, site.id);
    requireCurrentVersion(headers['If-Match'], current.version);
    return { status: 200, body: schoolRepresentation(current), headers: { ETag: etagOf(current.version) } };
  }
  const updated = await updateSite(db, site.id, settings, expectedVersion);
  return { status: 200, body: schoolRepresentation(updated), headers: { ETag: etagOf(updated.version) } };
};
