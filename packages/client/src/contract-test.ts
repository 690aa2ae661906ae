import { Command, CommanderError } from 'commander';
import { print, printFailure, type Runner } from '../../../src/cli/command-kit.js';
import { defineContractTestCommand } from '../../../src/cli/commands/contract-test.js';

/**
 * `schoolgate-contract-test`: the server's `schoolgate contract-test` on its own, for a consumer's CI
 * (docs/contract-test.md). Same options and exit codes: 0 when every check that ran passed, 1 when one failed,
 * 2 for a usage error.
 */
const program = new Command('schoolgate-contract-test').option('--json', 'print one JSON document on stdout instead of text').showHelpAfterError().exitOverride();
const json = (): boolean => Boolean(program.opts<{ json?: boolean }>().json);
const run: Runner =
  (action) =>
  async (...args) => {
    try {
      const result = await action(...args);
      print({ json: json() }, result);
      if (result.exitCode !== undefined && result.exitCode !== 0) process.exitCode = result.exitCode;
    } catch (error) {
      process.exitCode = printFailure(json(), error);
    }
  };
defineContractTestCommand(program, run);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = error instanceof CommanderError ? (error.exitCode === 0 ? 0 : 2) : printFailure(process.argv.includes('--json'), error);
}
