import type { Command } from 'commander';
import type { Site, SiteSettings } from '../../sites/sites.js';
import { parseSwitch, table, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

function siteJson(site: Site, hosts: string[]) {
  return {
    id: site.id,
    origin: site.origin,
    subdomain: site.subdomain,
    name: site.name,
    timezone: site.timezone,
    defaultCurrency: site.defaultCurrency,
    contactEmail: site.contactEmail,
    mcpConnectionsEnabled: site.mcpConnectionsEnabled,
    openRegistration: site.openRegistration,
    metadataDocumentHosts: hosts,
    trustedDocumentsRequiredFor: site.trustedDocumentsRequiredFor,
    createdAt: site.createdAt.toISOString(),
    updatedAt: site.updatedAt.toISOString(),
  };
}

function describe(site: Site, hosts: string[]): string {
  return [
    `${site.name} <${site.origin}> (site ${site.id}, subdomain ${site.subdomain})`,
    `  timezone ${site.timezone}, currency ${site.defaultCurrency}`,
    `  MCP connections beta: ${site.mcpConnectionsEnabled ? 'on' : 'off'}; open registration: ${site.openRegistration ? 'on' : 'off'}`,
    `  metadata-document hosts: ${hosts.length > 0 ? hosts.join(', ') : '(none)'}`,
    `  trusted documents required for: ${site.trustedDocumentsRequiredFor.length > 0 ? site.trustedDocumentsRequiredFor.join(', ') : '(no client kind)'}`,
  ].join('\n');
}

interface SiteOptions {
  origin?: string;
  site?: string;
  name?: string;
  subdomain?: string;
  timezone?: string;
  currency?: string;
  contactEmail?: string;
  mcpConnections?: string;
  openRegistration?: string;
  metadataHosts?: string;
  trustedDocumentsRequiredFor?: string;
}

function settingsFrom(options: SiteOptions): SiteSettings {
  return {
    name: options.name,
    timezone: options.timezone,
    defaultCurrency: options.currency,
    contactEmail: options.contactEmail,
    mcpConnectionsEnabled: options.mcpConnections === undefined ? undefined : parseSwitch(options.mcpConnections),
    openRegistration: options.openRegistration === undefined ? undefined : parseSwitch(options.openRegistration),
    // Checked by updateSite (an unknown kind is refused with the known ones named); "" clears the list.
    trustedDocumentsRequiredFor:
      options.trustedDocumentsRequiredFor === undefined
        ? undefined
        : options.trustedDocumentsRequiredFor
            .split(',')
            .map((kind) => kind.trim())
            .filter((kind) => kind !== '') as SiteSettings['trustedDocumentsRequiredFor'],
  };
}

export function registerSiteCommands(program: Command, run: Runner): void {
  const site = program.command('site').description('create, list and configure school sites (one origin = one site)');

  site
    .command('create')
    .description('create a site for an origin')
    .requiredOption('--origin <origin>', 'the site origin, e.g. https://school.example.com')
    .requiredOption('--name <name>', 'the school name')
    .option('--subdomain <label>', 'subdomain label (default: derived from the origin)')
    .option('--timezone <tz>', 'IANA timezone', 'UTC')
    .option('--currency <code>', 'ISO 4217 default currency', 'USD')
    .option('--contact-email <email>', 'contact address')
    .option('--mcp-connections <on|off>', 'MCP connections beta (shows Developers > OAuth applications)', 'off')
    .option('--open-registration <on|off>', 'accept Client ID Metadata Documents from any host', 'off')
    .action(
      run(async (options: SiteOptions): Promise<CommandResult> => {
        const { createSite } = await import('../../sites/sites.js');
        return withDatabase(async (db) => {
          const created = await createSite(db, { origin: options.origin ?? '', subdomain: options.subdomain, ...settingsFrom(options), name: options.name ?? '' });
          return { text: `created ${describe(created, [])}`, data: siteJson(created, []) };
        });
      }),
    );

  site
    .command('list')
    .description('list every site in the database')
    .action(
      run(async (): Promise<CommandResult> => {
        const [{ listSites }, { metadataDocumentHosts }] = await Promise.all([import('../../sites/sites.js'), import('../../sites/registration-policy.js')]);
        return withDatabase(async (db) => {
          const sites = await listSites(db);
          const hosts = await Promise.all(sites.map((one) => metadataDocumentHosts(db, one.id)));
          return {
            text: sites.length === 0 ? '(no sites)' : table([['ID', 'ORIGIN', 'SUBDOMAIN', 'NAME', 'MCP'], ...sites.map((one) => [String(one.id), one.origin, one.subdomain, one.name, one.mcpConnectionsEnabled ? 'on' : 'off'])]),
            data: sites.map((one, index) => siteJson(one, hosts[index] ?? [])),
          };
        });
      }),
    );

  site
    .command('set')
    .description("change a site's settings")
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .option('--name <name>', 'the school name')
    .option('--timezone <tz>', 'IANA timezone')
    .option('--currency <code>', 'ISO 4217 default currency')
    .option('--contact-email <email>', 'contact address')
    .option('--mcp-connections <on|off>', 'MCP connections beta')
    .option('--open-registration <on|off>', 'accept Client ID Metadata Documents from any host')
    .option('--metadata-hosts <hosts>', 'comma-separated allowlist of Client ID Metadata Document hosts (replaces the list; "" clears it)')
    .option(
      '--trusted-documents-required-for <kinds>',
      'comma-separated client kinds (vendor_platform, metadata_document, operator_created) that may send their trusted documents only (replaces the list; "" clears it)',
    )
    .action(
      run(async (options: SiteOptions): Promise<CommandResult> => {
        const [{ requireSiteByOrigin, updateSite }, { metadataDocumentHosts, setMetadataDocumentHosts }] = await Promise.all([
          import('../../sites/sites.js'),
          import('../../sites/registration-policy.js'),
        ]);
        return withDatabase(async (db) => {
          const current = await requireSiteByOrigin(db, options.site ?? '');
          const updated = await updateSite(db, current.id, settingsFrom(options));
          const hosts =
            options.metadataHosts === undefined
              ? await metadataDocumentHosts(db, current.id)
              : await setMetadataDocumentHosts(db, current.id, options.metadataHosts.split(',').filter((host) => host.trim() !== ''));
          return { text: `updated ${describe(updated, hosts)}`, data: siteJson(updated, hosts) };
        });
      }),
    );
}
