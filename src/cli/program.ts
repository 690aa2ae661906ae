import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './commands/accounts.js';
import { registerClientCommands } from './commands/clients.js';
import { registerContractTestCommand } from './commands/contract-test.js';
import { registerDeprecationCommands } from './commands/deprecations.js';
import { registerDocumentCommands } from './commands/documents.js';
import { registerHousekeepingCommands } from './commands/housekeeping.js';
import { registerImportCommand } from './commands/import.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerOperationCommands } from './commands/operations.js';
import { registerSiteCommands } from './commands/sites.js';
import { registerUsageCommands } from './commands/usage.js';
import { registerVendorPlatformCommands } from './commands/vendors.js';
import { printFailure, runnerFor } from './command-kit.js';

/**
 * Every command is registered up front (so --help lists them all), but a command file loads only commander, the
 * runtime and small constants when the CLI starts: what a command runs (the database layer, jose, ajv, the contract
 * checker, …) is imported inside its action. So `schoolgate site list` loads the configuration, knex and the sites
 * module, not the whole server. test/cli-loading.test.ts checks what a command loads.
 */
export function buildProgram(): Command {
  const program = new Command('schoolgate')
    .description('Operator CLI for schoolgate. Reads the same configuration as the server (DATABASE_URL, …) and is safe to use while it runs.')
    .option('--json', 'print one JSON document on stdout instead of text')
    .showHelpAfterError()
    .exitOverride();

  const run = runnerFor(program);

  registerSiteCommands(program, run);
  registerAccountCommands(program, run);
  registerClientCommands(program, run);
  registerVendorPlatformCommands(program, run);
  registerOperationCommands(program, run);
  registerImportCommand(program, run);
  registerKeyCommands(program, run);
  registerHousekeepingCommands(program, run);
  registerContractTestCommand(program, run);
  registerDeprecationCommands(program, run);
  registerDocumentCommands(program, run);
  registerUsageCommands(program, run);
  return program;
}

/**
 * Runs one command line and returns its exit status. The status of this run only: process.exitCode is cleared for the
 * run and restored afterwards, so in-process callers (tests) can run several commands one after another.
 */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; usage errors (unknown option, missing argument) exit 2.
      return error.exitCode === 0 ? 0 : 2;
    }
    return printFailure(argv.includes('--json'), error);
  } finally {
    process.exitCode = previous;
  }
}
