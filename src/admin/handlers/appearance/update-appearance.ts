import { updateAppearance as changeAppearance, type AppearanceChanges } from '../../../content/appearance.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { appearanceRepresentation, appearanceVersionFromIfMatch } from './representation.js';

/** PATCH /school/appearance (appearance:write): merge patch at the version If-Match names ("v0": the defaults). */
export const updateAppearance: AdminHandler<'updateAppearance'> = async ({ db, site, headers, body }) => {
  const expectedVersion = appearanceVersionFromIfMatch(headers['If-Match']);
  const changes: AppearanceChanges = {};
  if (body.primaryColor !== undefined) changes.primaryColor = body.primaryColor;
  if (body.accentColor !== undefined) changes.accentColor = body.accentColor;
  if (body.logoUrl !== undefined) changes.logoUrl = body.logoUrl;
  if (body.faviconUrl !== undefined) changes.faviconUrl = body.faviconUrl;
  if (body.coverImageUrl !== undefined) changes.coverImageUrl = body.coverImageUrl;
  if (body.customCss !== undefined) changes.customCss = body.customCss;
  const appearance = await changeAppearance(db, site, changes, expectedVersion);
  return { status: 200, body: appearanceRepresentation(appearance), headers: { ETag: etagOf(appearance.version) } };
};
