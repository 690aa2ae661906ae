import { normalizeHost } from '../../sites/registration-policy.js';
import { SUBDOMAIN, defaultSubdomain, parseOrigin } from '../../sites/sites.js';
import { ValidationError } from '../../shared/errors.js';
import type { ImportContext } from '../context.js';

/** The only checks that need the database: the subdomain must be a DNS label no other site uses. */
async function checkSubdomain(ctx: ImportContext, origin: string, subdomain: string): Promise<void> {
  const at = ctx.document.site.subdomain === undefined ? '/site/origin' : '/site/subdomain';
  const refuse = (message: string): never => {
    throw new ValidationError('the import document is not valid', [{ pointer: at, message }], 'invalid_import_document');
  };
  if (!SUBDOMAIN.test(subdomain)) refuse(`the subdomain derived from the origin, "${subdomain}", is not a DNS label; give site.subdomain`);
  const clash = await ctx.trx('sites').where({ subdomain }).whereNot({ origin }).first('origin');
  if (clash) refuse(`subdomain "${subdomain}" belongs to another site; give the site another subdomain`);
}

/** Creates the site when no site has the origin, updates it otherwise; then its appearance and metadata hosts. */
export async function importSite(ctx: ImportContext): Promise<{ id: number; origin: string; created: boolean }> {
  const { trx, document } = ctx;
  const input = document.site;
  const origin = parseOrigin(input.origin);
  const existing: { subdomain: string } | undefined = await trx('sites').where({ origin }).first('subdomain');
  const subdomain = input.subdomain ?? existing?.subdomain ?? defaultSubdomain(origin);
  await checkSubdomain(ctx, origin, subdomain);
  ctx.siteId = await ctx.save(
    'sites',
    { origin },
    {
      subdomain,
      name: input.name,
      description: input.description ?? null,
      timezone: input.timezone ?? 'UTC',
      default_currency: input.defaultCurrency ?? 'USD',
      contact_email: input.contactEmail?.toLowerCase() ?? null,
      mcp_connections_enabled: input.mcpConnectionsEnabled ?? false,
      open_registration: input.openRegistration ?? false,
    },
  );

  const appearance = input.appearance;
  if (appearance) {
    await ctx.link(
      'site_appearance',
      { site_id: ctx.siteId },
      {
        primary_color: appearance.primaryColor ?? null,
        accent_color: appearance.accentColor ?? null,
        logo_url: appearance.logoUrl ?? null,
        favicon_url: appearance.faviconUrl ?? null,
        cover_image_url: appearance.coverImageUrl ?? null,
        custom_css: appearance.customCss ?? null,
      },
    );
  }
  for (const host of input.metadataDocumentHosts ?? []) {
    await ctx.link('site_metadata_document_hosts', { site_id: ctx.siteId, host: normalizeHost(host) });
  }
  ctx.siteCreated = existing === undefined;
  return { id: ctx.siteId, origin, created: ctx.siteCreated };
}
