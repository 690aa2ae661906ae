import path from 'node:path';
import { parseArgs } from 'node:util';
import { readWorkingTree, UsageError } from '../diff/sources.js';
import { contractDeprecations } from './contract.js';

/**
 * `npm run lint:deprecations [-- --repo DIR]` (part of `npm run lint`; docs/versioning.md): every deprecation in
 * schema/ and openapi/admin.yaml must carry a sunset date and a replacement. Exit 0: it does; 1: one does not; 2: usage
 * error (a contract that does not parse or build).
 */

function main(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { repo: { type: 'string' } } });
  try {
    const { deprecations, problems } = contractDeprecations(readWorkingTree(path.resolve(values.repo ?? process.cwd())));
    if (problems.length > 0) {
      process.stderr.write(`${problems.map((problem) => `lint:deprecations: ${problem}`).join('\n')}\nSee docs/versioning.md for the convention.\n`);
      return 1;
    }
    const summary = deprecations.map((deprecation) => `\n  ${deprecation.where}: sunset ${deprecation.sunset ?? '?'}, use ${deprecation.replacement ?? '?'}`).join('');
    process.stdout.write(`lint:deprecations: ${deprecations.length === 0 ? 'no deprecations' : `${deprecations.length} deprecation${deprecations.length === 1 ? '' : 's'}, each with a sunset date and a replacement${summary}`}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`lint:deprecations: ${error.message}\n`);
    return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
