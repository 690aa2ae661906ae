import { countOfferedConsultingServices } from './consulting.js';
import type { CatalogContext } from './context.js';
import { countPublicCourses } from './courses.js';
import { countUpcomingPublicEvents } from './events.js';

/** What a school publishes about itself: identity, contact, locale, lecturers and the size of its catalogue. */
export interface SchoolProfile {
  name: string;
  description: string | null;
  /** The site's origin, `{base_url}`. */
  url: string;
  /** IANA time zone the school announces times in. */
  timezone: string;
  /** ISO 4217 code prices are usually given in. */
  defaultCurrency: string;
  contactEmail: string | null;
  logoUrl: string | null;
  primaryColor: string | null;
  accentColor: string | null;
  /** Public lecturer profiles, by name. */
  lecturers: Array<{ name: string; bio: string | null; avatarUrl: string | null }>;
  catalogue: { publishedCourses: number; upcomingEvents: number; consultingServices: number };
}

/** The profile of the context's site (four small queries). */
export async function schoolProfile(ctx: CatalogContext): Promise<SchoolProfile> {
  const { site } = ctx;
  const [appearance, lecturers, publishedCourses, upcomingEvents, consultingServices] = await Promise.all([
    ctx.db('site_appearance').where({ site_id: site.id }).first('logo_url', 'primary_color', 'accent_color') as Promise<{ logo_url: string | null; primary_color: string | null; accent_color: string | null } | undefined>,
    ctx
      .db('lecturer_profiles')
      .where({ site_id: site.id })
      .orderBy([{ column: 'display_name' }, { column: 'id' }])
      .select('display_name', 'bio', 'avatar_url') as Promise<Array<{ display_name: string; bio: string | null; avatar_url: string | null }>>,
    countPublicCourses(ctx),
    countUpcomingPublicEvents(ctx),
    countOfferedConsultingServices(ctx),
  ]);
  return {
    name: site.name,
    description: site.description,
    url: site.origin,
    timezone: site.timezone,
    defaultCurrency: site.defaultCurrency,
    contactEmail: site.contactEmail,
    logoUrl: appearance?.logo_url || null,
    primaryColor: appearance?.primary_color || null,
    accentColor: appearance?.accent_color || null,
    lecturers: lecturers.map((row) => ({ name: row.display_name, bio: row.bio, avatarUrl: row.avatar_url || null })),
    catalogue: { publishedCourses, upcomingEvents, consultingServices },
  };
}
