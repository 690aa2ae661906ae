import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
// Light (no database driver), so they load at start-up: the option's default, the dry run, the report's rows.
import { DEFAULT_BATCH_SIZE, prune, type PruneReport } from '../../housekeeping/prune.js';
import { PRUNE_TARGETS } from '../../housekeeping/prune-rules.js';
import { CliError, parseWholeNumber, table, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

interface PruneCommandOptions {
  retentionDays?: string;
  batchSize: string;
  dutyPercent?: string;
  dryRun?: boolean;
}

function formatReport(report: PruneReport): string {
  const verb = report.dryRun ? 'would delete' : 'deleted';
  const rows = [['records', report.dryRun ? 'would delete' : 'deleted'], ...PRUNE_TARGETS.map((target) => [target, String(report.deleted[target])])];
  return [
    `${verb} ${report.total} rows in ${(report.durationMs / 1000).toFixed(2)} s (retention ${report.retentionDays} days, batches of ${report.batchSize}, ${report.dutyPercent}% of the time in batches)`,
    table(rows),
  ].join('\n');
}

export function registerHousekeepingCommands(program: Command, run: Runner): void {
  program
    .command('prune')
    .description(
      'delete expired codes, authorization requests, sign-in sessions, rate-limit windows, unused metadata-document clients and token pairs revoked or expired longer than the retention, in small batches; safe while servers run (docs/housekeeping.md)',
    )
    .option('--retention-days <days>', 'keep revoked and expired tokens this many days (default: SCHOOLGATE_PRUNE_RETENTION_DAYS, else 7)')
    .option('--batch-size <rows>', 'rows deleted per statement', String(DEFAULT_BATCH_SIZE))
    .option('--duty-percent <percent>', 'share of the run spent in batches, 1 to 100: after each batch, pause in proportion to its time (default: SCHOOLGATE_PRUNE_DUTY_PERCENT, else 25)')
    .option('--dry-run', 'only count what would be deleted')
    .action(
      run(async (options: PruneCommandOptions): Promise<CommandResult> => {
        const retentionDays = options.retentionDays === undefined ? loadConfig().prune.retentionDays : parseWholeNumber(options.retentionDays, '--retention-days', 0);
        const batchSize = parseWholeNumber(options.batchSize, '--batch-size', 1);
        const config = loadConfig();
        const { usageRetentionDays } = config;
        const dutyPercent = options.dutyPercent === undefined ? config.prune.dutyPercent : parseWholeNumber(options.dutyPercent, '--duty-percent', 1, 100);
        // The lease (and with it the database layer) loads only when a prune runs.
        const { pruneUnderLease } = await import('../../housekeeping/run-prune.js');
        return withDatabase(async (db) => {
          if (options.dryRun) {
            const report = await prune(db, { retentionDays, usageRetentionDays, batchSize, dryRun: true });
            return { text: formatReport(report), data: report };
          }
          // The same lease as the servers' job: never two prunes at once, whoever started them.
          const outcome = await pruneUnderLease(db, { retentionDays, usageRetentionDays, batchSize, dutyPercent });
          if (!outcome.ran) {
            const until = outcome.lease?.leaseExpiresAt.toISOString() ?? 'unknown';
            throw new CliError(`another prune is running (${outcome.lease?.holder ?? 'unknown holder'}, lease until ${until}); try again later`, 'prune_running');
          }
          return { text: formatReport(outcome.report), data: outcome.report };
        });
      }),
    );
}
