import { Option, type Command } from 'commander';
import { CliError, type CommandResult, type Runner } from '../command-kit.js';

export const DEFAULT_TIMEOUT_MS = 10000;

interface ContractTestCommandOptions {
  baseUrl: string;
  token?: string;
  memberToken?: string;
  timeout: string;
}

/** `{base_url}` as the checks compare it: an http(s) URL without a trailing slash, query or fragment. */
export function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--base-url "${value}" is not a URL`, 'invalid_argument', 2);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliError(`--base-url must be an http or https URL, not ${url.protocol}`, 'invalid_argument', 2);
  if (url.search || url.hash || url.username || url.password) throw new CliError('--base-url must have no query, fragment or credentials', 'invalid_argument', 2);
  return url.href.replace(/\/+$/, '');
}

function parseTimeout(value: string): number {
  const timeout = Number(value);
  if (!Number.isInteger(timeout) || timeout <= 0) throw new CliError(`--timeout "${value}" is not a positive number of milliseconds`, 'invalid_argument', 2);
  return timeout;
}

export function registerContractTestCommand(program: Command, run: Runner): void {
  defineContractTestCommand(program.command('contract-test'), run);
}

/**
 * The contract-test command's description, options and action on `command`: `schoolgate contract-test` here, and the
 * whole of `schoolgate-contract-test`, the command of the consumer package (packages/client).
 */
export function defineContractTestCommand(command: Command, run: Runner): Command {
  return command
    .description(
      'check a deployed instance against its contracts (OpenAPI document, discovery documents, member GraphQL endpoint, sample admin calls); prints one row per check; exit 0 when every check that ran passed, 1 when one failed (docs/contract-test.md)',
    )
    .requiredOption('--base-url <url>', "the site's {base_url}, e.g. https://school.example")
    .addOption(new Option('--token <token>', 'an operator access token (operator client, scope school:read) for the admin API checks').env('SCHOOLGATE_OPERATOR_TOKEN'))
    .addOption(new Option('--member-token <token>', 'a member access token (scope account:read) for the member GraphQL checks').env('SCHOOLGATE_MEMBER_TOKEN'))
    .option('--timeout <ms>', 'deadline of each HTTP request', String(DEFAULT_TIMEOUT_MS))
    .action(
      run(async (options: ContractTestCommandOptions): Promise<CommandResult> => {
        const { formatReport, runContractTest } = await import('../../contract/contract-test/index.js');
        const report = await runContractTest({
          baseUrl: parseBaseUrl(options.baseUrl),
          token: options.token || undefined,
          memberToken: options.memberToken || undefined,
          timeoutMs: parseTimeout(options.timeout),
        });
        return { text: formatReport(report), data: report, exitCode: report.ok ? 0 : 1 };
      }),
    );
}
