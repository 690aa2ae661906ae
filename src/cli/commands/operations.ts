import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

export function registerOperationCommands(program: Command, run: Runner): void {
  program
    .command('migrate')
    .description('bring the database schema up to date (safe while servers run: knex holds a migration lock)')
    .option('--status', 'only list applied and pending migrations')
    .option('--force-unlock', 'release a migration lock left by an instance that died while migrating')
    .action(
      run(async (options: { status?: boolean; forceUnlock?: boolean }): Promise<CommandResult> => {
        const config = loadConfig();
        const [{ openDatabase }, { forceReleaseMigrationLock, migrateToLatest, migrationStatus }] = await Promise.all([
          import('../../db/connection.js'),
          import('../../db/migrate.js'),
        ]);
        const db = openDatabase(config.database);
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
      run(async (options: { site: string }): Promise<CommandResult> => {
        const [{ rotateSigningKey }, { requireSiteByOrigin }] = await Promise.all([import('../../keys/signing-keys.js'), import('../../sites/sites.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const key = await rotateSigningKey(db, site.id);
          return { text: `new signing key ${key.kid} (${key.alg}) is active at ${site.origin}`, data: { site: site.origin, kid: key.kid, alg: key.alg } };
        });
      }),
    );
}
