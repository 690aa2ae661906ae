import { requireDate, type Database } from '../db/connection.js';
import { updateVersionedRow, versionMismatch } from '../db/versioned-rows.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import type { Site } from '../sites/sites.js';
import { isUniqueViolation } from '../db/queries.js';

/**
 * The site's branding (`site_appearance`, one row per site; the admin API's /school/appearance). A site without a row
 * has the defaults (every value null: the theme's own) at version 0, so its ETag is `"v0"`. The first change inserts
 * the row at version 1; the primary key on `site_id` makes that race-safe: of two first writers based on `"v0"` one
 * inserts and the other gets `version_mismatch` (412), exactly like two writers of an existing row.
 */

export interface AppearanceValues {
  primaryColor: string | null;
  accentColor: string | null;
  logoUrl: string | null;
  faviconUrl: string | null;
  coverImageUrl: string | null;
  customCss: string | null;
}

export interface Appearance extends AppearanceValues {
  /** False while the site has no row (the defaults). */
  customized: boolean;
  /** 0 while the site has the defaults. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface AppearanceRow {
  primary_color: string | null;
  accent_color: string | null;
  logo_url: string | null;
  favicon_url: string | null;
  cover_image_url: string | null;
  custom_css: string | null;
  version: number;
  created_at: unknown;
  updated_at: unknown;
}

const COLUMNS: Record<keyof AppearanceValues, keyof AppearanceRow> = {
  primaryColor: 'primary_color',
  accentColor: 'accent_color',
  logoUrl: 'logo_url',
  faviconUrl: 'favicon_url',
  coverImageUrl: 'cover_image_url',
  customCss: 'custom_css',
};

const FIELDS = Object.keys(COLUMNS) as Array<keyof AppearanceValues>;

/** The version an absent row stands for (its ETag `"v0"`). */
export const DEFAULT_APPEARANCE_VERSION = 0;

/** The longest custom CSS accepted: what a MySQL TEXT column surely holds in utf8mb4 (65535 bytes / 4). */
export const MAX_CUSTOM_CSS_LENGTH = 16383;

function nonEmpty(value: string | null): string | null {
  return value === null || value === '' ? null : value;
}

export async function getAppearance(db: Database, site: Site): Promise<Appearance> {
  const row = (await db('site_appearance').where({ site_id: site.id }).first()) as AppearanceRow | undefined;
  if (!row) {
    return { primaryColor: null, accentColor: null, logoUrl: null, faviconUrl: null, coverImageUrl: null, customCss: null, customized: false, version: DEFAULT_APPEARANCE_VERSION, createdAt: site.createdAt, updatedAt: site.createdAt };
  }
  return {
    primaryColor: nonEmpty(row.primary_color),
    accentColor: nonEmpty(row.accent_color),
    logoUrl: nonEmpty(row.logo_url),
    faviconUrl: nonEmpty(row.favicon_url),
    coverImageUrl: nonEmpty(row.cover_image_url),
    customCss: row.custom_css,
    customized: true,
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

export type AppearanceChanges = Partial<AppearanceValues>;

/** Rules the contract cannot say: custom CSS is embedded in a `<style>` element, so it may not close it. */
function checkChanges(changes: AppearanceChanges): AppearanceChanges {
  if (changes.customCss !== undefined && changes.customCss !== null && /<\/style/i.test(changes.customCss)) {
    throw new ValidationError('The appearance is not valid.', [{ pointer: '/customCss', message: 'must not contain "</style": it is embedded in a <style> element' }]);
  }
  const normalized: AppearanceChanges = { ...changes };
  if (typeof normalized.primaryColor === 'string') normalized.primaryColor = normalized.primaryColor.toLowerCase();
  if (typeof normalized.accentColor === 'string') normalized.accentColor = normalized.accentColor.toLowerCase();
  return normalized;
}

/**
 * A merge patch of the appearance, applied only at `expectedVersion` (0: the site still has the defaults). Unchanged
 * values are not written, so a patch that changes nothing keeps the version (but still needs it to match).
 */
export async function updateAppearance(db: Database, site: Site, rawChanges: AppearanceChanges, expectedVersion: number): Promise<Appearance> {
  const changes = checkChanges(rawChanges);
  const current = await getAppearance(db, site);
  const columns: Record<string, string | null> = {};
  for (const field of FIELDS) {
    const value = changes[field];
    if (value !== undefined && value !== current[field]) columns[COLUMNS[field]] = value;
  }
  if (expectedVersion === DEFAULT_APPEARANCE_VERSION) {
    if (current.customized) throw versionMismatch('appearance');
    if (Object.keys(columns).length === 0) return current;
    const now = new Date();
    try {
      await db('site_appearance').insert({ site_id: site.id, ...columns, version: 1, created_at: now, updated_at: now });
    } catch (error) {
      if (isUniqueViolation(error)) throw versionMismatch('appearance');
      throw error;
    }
    return getAppearance(db, site);
  }
  try {
    await updateVersionedRow(db, 'site_appearance', { site_id: site.id }, expectedVersion, columns, { what: 'appearance', notFound: 'The site has the default appearance.' });
  } catch (error) {
    // No row yet: the appearance is at "v0", so any other version is stale.
    if (error instanceof NotFoundError) throw versionMismatch('appearance');
    throw error;
  }
  return getAppearance(db, site);
}
