import { Command, CommanderError } from 'commander';
import { printFailure, runnerFor } from '../../../src/cli/command-kit.js';
import { defineContractTestCommand } from '../../../src/cli/commands/contract-test.js';

/**
 * `schoolgate-contract-test`: the server's `schoolgate contract-test` on its own, for a consumer's CI
 * (docs/contract-test.md). Same options and exit codes: 0 when every check that ran passed, 1 when one failed,
 * 2 for a usage error.
 */
const program = new Command('schoolgate-contract-test').option('--json', 'print one JSON document on stdout instead of text').showHelpAfterError().exitOverride();
const run = runnerFor(program);
defineContractTestCommand(program, run);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = error instanceof CommanderError ? (error.exitCode === 0 ? 0 : 2) : printFailure(process.argv.includes('--json'), error);
}
