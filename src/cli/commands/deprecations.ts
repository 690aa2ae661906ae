import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { variantProfile } from '../../variant.js';
import type { DeprecatedElementUsage, DeprecationUsageReport } from '../../deprecations/report.js';
import { parseWholeNumber, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

const count = (value: number) => value.toLocaleString('en-US');

function describeElement(element: DeprecatedElementUsage, days: number): string[] {
  const api = element.api === 'graphql' ? 'member API' : 'admin API';
  const policy = element.sunset === null ? 'no sunset given' : `sunset ${element.sunset}${element.replacement === null ? '' : `, use ${element.replacement} instead`}`;
  const lines = [`${element.where} (${api}): ${policy}`];
  if (element.clients.length === 0) lines.push(`  no client used it in the last ${days} days`);
  for (const client of element.clients) {
    lines.push(`  client ${client.clientId} (${client.clientName}) called ${element.where} ${count(client.uses)} time${client.uses === 1 ? '' : 's'} in the last ${days} days, last at ${client.lastUsedAt}`);
  }
  return lines;
}

function formatReport(origin: string, report: DeprecationUsageReport): string {
  if (report.elements.length === 0) return `${origin}: nothing in the member API or the admin API is deprecated, and no deprecated element was used from ${report.from} to ${report.to}`;
  const header = `${origin}: deprecated elements and their uses from ${report.from} to ${report.to} (UTC)`;
  return [header, ...report.elements.flatMap((element) => ['', ...describeElement(element, report.days)])].join('\n');
}

export function registerDeprecationCommands(program: Command, run: Runner): void {
  program
    .command('deprecations')
    .description('list what the member API and the admin API deprecate, with sunset dates, and which clients of a site still use it (docs/versioning.md)')
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .option('--days <days>', 'how many days to count, ending today (UTC), 1 to SCHOOLGATE_USAGE_RETENTION_DAYS (default 90)', '7')
    .action(
      run(async (options: { site: string; days: string }): Promise<CommandResult> => {
        const { variant, usageRetentionDays } = loadConfig();
        const days = parseWholeNumber(options.days, '--days', 1, usageRetentionDays);
        const [{ requireSiteByOrigin }, { runningDeprecations }, { deprecationUsageReport }] = await Promise.all([
          import('../../sites/sites.js'),
          import('../../deprecations/catalog.js'),
          import('../../deprecations/report.js'),
        ]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const report = await deprecationUsageReport(db, site.id, runningDeprecations(variantProfile(variant)), days, usageRetentionDays);
          return { text: formatReport(site.origin, report), data: { site: site.origin, ...report } };
        });
      }),
    );
}
