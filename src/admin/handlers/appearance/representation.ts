import type { components } from '../../../../generated/admin-api.js';
import type { Appearance as AppearanceModel } from '../../../content/appearance.js';
import { PreconditionFailedProblem } from '../../api/problems.js';
import { versionFromIfMatch } from '../../api/etag.js';

export type Appearance = components['schemas']['Appearance'];

export function appearanceRepresentation(appearance: AppearanceModel): Appearance {
  return {
    primaryColor: appearance.primaryColor,
    accentColor: appearance.accentColor,
    logoUrl: appearance.logoUrl,
    faviconUrl: appearance.faviconUrl,
    coverImageUrl: appearance.coverImageUrl,
    customCss: appearance.customCss,
    customized: appearance.customized,
    createdAt: appearance.createdAt.toISOString(),
    updatedAt: appearance.updatedAt.toISOString(),
  };
}

/** The version If-Match names; `"v0"` is the defaults of a site that never changed its appearance. */
export function appearanceVersionFromIfMatch(ifMatch: string): number {
  if (ifMatch === '"v0"') return 0;
  const version = versionFromIfMatch(ifMatch);
  if (version < 1) throw new PreconditionFailedProblem();
  return version;
}
