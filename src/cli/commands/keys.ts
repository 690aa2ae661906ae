import type { Command } from 'commander';
import { ConfigError } from '../../config/config-error.js';
import { KEY_ENCRYPTION_ENV } from '../../config/key-encryption.js';
import { configuredKeyRing, type KeyRing } from '../../keys/key-ring.js';
import type { ReencryptionReport } from '../../keys/reencryption.js';
import { CliError, parseWholeNumber, table, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

/**
 * DEFAULT_REENCRYPTION_BATCH_SIZE of keys/reencryption.ts, which loads jose and the database layer: --help shows
 * this copy without loading them (test/cli-loading.test.ts keeps the two equal).
 */
export const DEFAULT_REENCRYPTION_BATCH_SIZE = 100;

interface RotateEncryptionKeyOptions {
  batchSize: string;
  dryRun?: boolean;
}

function keyRing(): KeyRing {
  try {
    return configuredKeyRing();
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(`configuration error: ${error.message}`, 'configuration_error');
    throw error;
  }
}

function formatReport(report: ReencryptionReport): string {
  const verb = report.dryRun ? 'would re-encrypt' : 're-encrypted';
  const lines = [
    `${verb} ${report.reencrypted} of ${report.pending} private signing keys under key-encryption key ${report.currentKeyId} in ${(report.durationMs / 1000).toFixed(2)} s (batches of ${report.batchSize})`,
    table([['key-encryption key', 'role', 'signing keys'], ...report.keys.map((count) => [count.encryptionKeyId ?? '(none: stored before encryption)', count.role, String(count.keys)])]),
  ];
  if (report.unreadable.length > 0) {
    lines.push(
      `${report.unreadable.length === 1 ? '1 key cannot be decrypted with the configured key-encryption keys and was' : `${report.unreadable.length} keys cannot be decrypted with the configured key-encryption keys and were`} left as they are:`,
      ...report.unreadable.map((key) => `  ${key.site} ${key.state} key ${key.kid}: ${key.message}`),
      `Add the key-encryption key they name to ${KEY_ENCRYPTION_ENV.previous} and run this command again; a site whose key-encryption key is lost for good gets a new signing key with \`schoolgate keys rotate --site <origin>\`.`,
    );
  } else if (!report.dryRun && report.keys.every((count) => count.role === 'current')) {
    lines.push('Every signing key is under the current key-encryption key: previous key-encryption keys are no longer needed.');
  }
  return lines.join('\n');
}

export function registerKeyCommands(program: Command, run: Runner): void {
  // `keys rotate` is registered with the other operations; these commands join the same `keys` group.
  const keys = program.commands.find((command) => command.name() === 'keys') ?? program.command('keys').description('id_token signing keys');

  keys
    .command('rotate-encryption-key')
    .description(
      `finish a rotation of the key-encryption key: re-encrypt every private signing key under the current ${KEY_ENCRYPTION_ENV.key}, reading keys under the previous ones (${KEY_ENCRYPTION_ENV.previous}) and keys stored before encryption; in small batches, safe while servers run, and safe to run again (docs/signing-keys.md)`,
    )
    .option('--batch-size <keys>', 'keys re-encrypted per transaction', String(DEFAULT_REENCRYPTION_BATCH_SIZE))
    .option('--dry-run', 'only report which key-encryption key holds each signing key, and which cannot be decrypted')
    .action(
      run(async (options: RotateEncryptionKeyOptions, command: Command): Promise<CommandResult> => {
        const batchSize = parseWholeNumber(options.batchSize, '--batch-size', 1);
        const ring = keyRing();
        const quiet = Boolean(command.optsWithGlobals<{ json?: boolean }>().json);
        const { reencryptSigningKeys } = await import('../../keys/reencryption.js');
        return withDatabase(async (db) => {
          const report = await reencryptSigningKeys(db, ring, {
            batchSize,
            dryRun: options.dryRun,
            // Progress goes to stderr, so stdout stays the one result document.
            onProgress: quiet ? undefined : ({ handled, pending }) => process.stderr.write(`  ${handled} of ${pending} keys handled\n`),
          });
          return { text: formatReport(report), data: report, exitCode: report.unreadable.length > 0 ? 1 : 0 };
        });
      }),
    );
}
