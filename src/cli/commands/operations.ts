import fs from 'node:fs/promises';
import type { Command } from 'commander';
import { forceReleaseMigrationLock, migrateToLatest, migrationStatus } from '../../db/migrate.js';
import { openDatabase } from '../../db/connection.js';
import { loadConfig } from '../../config/config.js';
import { importSiteDocument } from '../../import/import-site.js';
import { rotateSigningKey } from '../../keys/signing-keys.js';
import { requireSiteByOrigin } from '../../sites/sites.js';
import { CliError, withDatabase, type CommandResult } from '../runtime.js';
import type { Runner } from '../program.js';

export function registerOperationCommands(program: Command, run: Runner): void {
  program
    .command('migrate')
    .description('bring the database schema up to date (safe while servers run: knex holds a migration lock)')
    .option('--status', 'only list applied and pending migrations')
    .option('--force-unlock', 'release a migration lock left by an instance that died while migrating')
    .action(
      run(async (options: { status?: boolean; forceUnlock?: boolean }): Promise<CommandResult> => {
        const db = openDatabase(loadConfig().database);
        try {
          if (options.forceUnlock) {
            await forceReleaseMigrationLock(db);
            return { text: 'migration lock released', data: { released: true } };
          }
          if (options.status) {
            const status = await migrationStatus(db);
            return { text: [...status.applied.map((name) => `applied  ${name}`), ...status.pending.map((name) => `pending  ${name}`)].join('\n'), data: status };
          }
          const applied = await migrateToLatest(db);
          return { text: applied.length === 0 ? 'already up to date' : `applied ${applied.join(', ')}`, data: { applied } };
        } finally {
          await db.destroy();
        }
      }),
    );

  program
    .command('keys')
    .description('id_token signing keys')
    .command('rotate')
    .description("make a new ES256 signing key for a site; the old one stays in the JWKS for a day so issued id_tokens still verify")
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .action(
      run(async (options: { site: string }): Promise<CommandResult> =>
        withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const key = await rotateSigningKey(db, site.id);
          return { text: `new signing key ${key.kid} (${key.alg}) is active at ${site.origin}`, data: { site: site.origin, kid: key.kid, alg: key.alg } };
        }),
      ),
    );

  program
    .command('import')
    .description("load a site's members and data from a JSON document (format: docs/import.schema.json); all or nothing, and re-importing changes nothing")
    .argument('<file>', 'the import document')
    .action(
      run(async (file: string): Promise<CommandResult> => {
        let document: unknown;
        try {
          document = JSON.parse(await fs.readFile(file, 'utf8'));
        } catch (error) {
          throw new CliError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, 'invalid_import_document');
        }
        return withDatabase(async (db) => {
          const report = await importSiteDocument(db, document);
          const lines = Object.entries(report.counts).map(([resource, count]) => `  ${resource.padEnd(28)} ${count.created} created, ${count.updated} updated, ${count.unchanged} unchanged`);
          const secrets = report.generatedClientSecrets.map(({ clientId, clientSecret }) => `  new secret for ${clientId}: ${clientSecret} (shown only now)`);
          return { text: [`imported ${file} into ${report.site.origin}${report.site.created ? ' (new site)' : ''}`, ...lines, ...secrets].join('\n'), data: report };
        });
      }),
    );
}
