import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { USAGE_APIS, type UsageApi, type UsageExport } from '../../usage/export-format.js';
import type { ElementUsage, UsageFilter, UsageWindow } from '../../usage/report.js';
import { variantProfile } from '../../variant.js';
import { CliError, parseWholeNumber, table, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

/**
 * `schoolgate usage`: which clients of a site used which member API coordinate, admin operation and MCP tool over the
 * last days (docs/usage.md, "Reading the usage"); `schoolgate usage export`: the same as the document
 * `npm run contract:diff -- --usage FILE` reads, with the site's trusted documents.
 */

const API_NAMES: Record<UsageApi, string> = { graphql: 'member API', admin: 'admin API', mcp: 'MCP' };
const count = (value: number) => value.toLocaleString('en-US');

/**
 * The options of both: they belong to `usage`, since commander hands every option after `usage export` to `usage`
 * as well (the root program does not keep options in position).
 */
interface UsageOptions {
  site: string;
  days?: string;
  api?: string;
  element?: string;
  prefix?: string;
  client?: string;
  output?: string;
}

/** An option of one of the two commands given to the other is a mistake, not something to ignore. */
function refuseOptions(options: UsageOptions, names: ReadonlyArray<keyof UsageOptions>, command: string): void {
  const given = names.filter((name) => options[name] !== undefined);
  if (given.length > 0) throw new CliError(`${command} takes no ${given.map((name) => `--${name}`).join(', ')}`, 'invalid_argument', 2);
}

/** `--days`, 30 by default (or the retention when shorter), at most the retention (SCHOOLGATE_USAGE_RETENTION_DAYS). */
function daysOption(value: string | undefined, retentionDays: number): number {
  if (value === undefined) return Math.min(30, retentionDays);
  const days = parseWholeNumber(value, '--days', 1);
  if (days > retentionDays) throw new CliError(`--days ${days} reaches beyond the ${retentionDays} days of usage kept (SCHOOLGATE_USAGE_RETENTION_DAYS); ask for ${retentionDays} or fewer`, 'invalid_argument', 2);
  return days;
}

function apiOption(value: string | undefined): UsageApi | undefined {
  if (value === undefined) return undefined;
  const api = USAGE_APIS.find((known) => known === value);
  if (api === undefined) throw new CliError(`--api must be one of ${USAGE_APIS.join(', ')}, got "${value}"`, 'invalid_argument', 2);
  return api;
}

function clientCell(client: { clientId: string | null; clientName: string | null }): string {
  return client.clientId === null ? '(anonymous)' : `${client.clientId} (${client.clientName ?? ''})`;
}

function formatReport(origin: string, window: UsageWindow, elements: readonly ElementUsage[]): string {
  const span = `from ${window.from} to ${window.to} (UTC)`;
  if (elements.length === 0) return `${origin}: nothing matching was used ${span}`;
  const rows = [['API', 'ELEMENT', 'CLIENT', 'USES', 'LAST USED']];
  for (const element of elements) {
    for (const client of element.clients) rows.push([API_NAMES[element.api], element.element, clientCell(client), count(client.uses), client.lastUsedAt]);
  }
  return [`${origin}: ${elements.length} element${elements.length === 1 ? '' : 's'} used ${span}, most used first`, '', table(rows)].join('\n');
}

function exportSummary(document: UsageExport, output: string): string {
  const documents = document.trustedDocuments.reduce((sum, client) => sum + client.documents.length, 0);
  return `wrote the usage of ${document.site} from ${document.from} to ${document.to} (${document.usage.length} elements, ${documents} trusted documents) to ${output}`;
}

export function registerUsageCommands(program: Command, run: Runner): void {
  const usage = program
    .command('usage')
    .description('list which clients of a site used which member API coordinate, admin API operation and MCP tool, and how often (docs/usage.md)')
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .option('--days <days>', 'how many days to count, ending today (UTC); default 30, at most SCHOOLGATE_USAGE_RETENTION_DAYS')
    .option('--api <api>', `only this API: ${USAGE_APIS.join(', ')}`)
    .option('--element <element>', 'only this element, exactly (Course.title, listCourses, list_courses)')
    .option('--prefix <prefix>', 'only the elements starting with this text (Course.)')
    .option('--client <clientId>', 'only the uses of this OAuth client')
    .option('--output <file>', '(usage export) write the export to this file instead of standard output')
    .action(
      run(async (options: UsageOptions): Promise<CommandResult> => {
        refuseOptions(options, ['output'], 'usage (without export)');
        const origin = options.site;
        const { usageRetentionDays } = loadConfig();
        const days = daysOption(options.days, usageRetentionDays);
        const api = apiOption(options.api);
        if (options.element !== undefined && options.prefix !== undefined) throw new CliError('give --element or --prefix, not both', 'invalid_argument', 2);
        const [{ requireSiteByOrigin }, { requireClient }, { elementUsage, usageWindow }] = await Promise.all([import('../../sites/sites.js'), import('../../clients/clients.js'), import('../../usage/report.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, origin);
          const filter: UsageFilter = {
            ...(api === undefined ? {} : { api }),
            ...(options.element === undefined ? {} : { element: options.element }),
            ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
            ...(options.client === undefined ? {} : { clientRef: (await requireClient(db, site.id, options.client)).ref }),
          };
          const window = usageWindow(days);
          const elements = await elementUsage(db, site.id, window, filter);
          return { text: formatReport(site.origin, window, elements), data: { site: site.origin, ...window, elements } };
        });
      }),
    );

  usage
    .command('export')
    .description('write the usage and the trusted documents of a site as the document contract:diff --usage reads (docs/usage.md)')
    .usage('--site <origin> [--days <days>] [--output <file>]')
    .addHelpText('after', '\n  --site <origin>  the site, named by its origin\n  --days <days>    how many days to export, ending today (UTC); default 30, at most SCHOOLGATE_USAGE_RETENTION_DAYS\n  --output <file>  write the export to this file instead of standard output')
    .action(
      run(async (): Promise<CommandResult> => {
        const options = usage.opts<UsageOptions>();
        refuseOptions(options, ['api', 'element', 'prefix', 'client'], 'usage export');
        const { usageRetentionDays, variant } = loadConfig();
        const days = daysOption(options.days, usageRetentionDays);
        const [{ requireSiteByOrigin }, { usageExport }] = await Promise.all([import('../../sites/sites.js'), import('../../usage/export.js')]);
        const document = await withDatabase(async (db) => usageExport(db, await requireSiteByOrigin(db, options.site), variantProfile(variant), days));
        if (options.output === undefined) return { text: JSON.stringify(document, null, 2), data: document };
        await writeFile(options.output, `${JSON.stringify(document, null, 2)}\n`);
        const summary = exportSummary(document, options.output);
        return { text: summary, data: { written: options.output, site: document.site, from: document.from, to: document.to, days: document.days } };
      }),
    );
}
