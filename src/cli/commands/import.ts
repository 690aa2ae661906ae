import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import type { Command } from 'commander';
import type { ImportReport } from '../../import/import-site.js';
import { importProgressDisplay } from '../import-progress.js';
import { CliError, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';
import { loadConfig } from '../../config/config.js';
import { limitHeapGrowth } from '../../heap-growth.js';

/** The file must be readable before the import starts; it is then read in chunks, once per pass (src/import/document-stream.ts). */
async function checkReadable(file: string): Promise<void> {
  try {
    await fs.access(file, constants.R_OK);
  } catch (error) {
    throw cannotRead(file, error);
  }
}

function cannotRead(file: string, error: unknown): CliError {
  return new CliError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, 'invalid_import_document');
}

function summary(file: string, report: ImportReport): string {
  const lines = Object.entries(report.counts).map(([resource, count]) => `  ${resource.padEnd(28)} ${count.created} created, ${count.updated} updated, ${count.unchanged} unchanged`);
  const secrets = report.generatedClientSecrets.map(({ clientId, clientSecret }) => `  new secret for ${clientId}: ${clientSecret} (shown only now)`);
  return [`imported ${file} into ${report.site.origin}${report.site.created ? ' (new site)' : ''}`, ...lines, ...secrets].join('\n');
}

export function registerImportCommand(program: Command, run: Runner): void {
  program
    .command('import')
    .description(
      "load a site's members and data from a JSON document (format: docs/import.schema.json); all or nothing, and re-importing changes nothing; on a terminal, shows a progress bar per table on stderr",
    )
    .argument('<file>', 'the import document')
    .action(
      run(async (file: string, _options: object, command: Command): Promise<CommandResult> => {
        await checkReadable(file);
        // The import reads and parses a large document twice and builds its statements a chunk at a time: nearly all it
        // allocates is garbage at once, which V8 would otherwise let pile up to several times what the import holds.
        limitHeapGrowth(loadConfig().heapGrowingPercent);
        const { importSiteFile } = await import('../../import/import-site.js');
        const { DocumentSyntaxError } = await import('../../import/document-stream.js');
        // Progress goes to stderr only, so stdout stays the one result document (or the summary).
        const progress = importProgressDisplay(process.stderr, { json: Boolean(command.optsWithGlobals<{ json?: boolean }>().json) });
        try {
          return await withDatabase(async (db) => {
            const report = await importSiteFile(db, file, { onProgress: progress?.update }).catch((error: unknown) => {
              throw error instanceof DocumentSyntaxError ? cannotRead(file, error) : error;
            });
            return { text: summary(file, report), data: report };
          });
        } finally {
          progress?.close();
        }
      }),
    );
}
