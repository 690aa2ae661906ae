/**
 * What every command shares and nothing more: the result and runner types, CliError, printing, option parsers and the
 * text table. No configuration and no database here (those are src/cli/runtime.ts), so a command that needs neither
 * (contract-test, also shipped on its own in packages/client) loads only this.
 */
import type { Command } from 'commander';
import { AppError, ValidationError } from '../shared/errors.js';

export interface GlobalOptions {
  json?: boolean;
}

/** The result of a command: `text` for people, `data` for --json (one JSON document on stdout). */
export interface CommandResult {
  text: string;
  data: unknown;
  /** The exit status after printing; 0 unless given (e.g. 1 for a report that says something failed). */
  exitCode?: number;
}

/** Wraps a command's action: prints its result (text or --json) and turns failures into an exit code. */
export type Runner = <A extends unknown[]>(action: (...args: A) => Promise<CommandResult>) => (...args: A) => Promise<void>;

/** The Runner of a program with a global `--json` option: prints each action's result, and its failure as an exit code. */
export function runnerFor(program: Command): Runner {
  const json = () => Boolean(program.opts<{ json?: boolean }>().json);
  return (action) =>
    async (...args) => {
      try {
        const result = await action(...args);
        print({ json: json() }, result);
        if (result.exitCode !== undefined && result.exitCode !== 0) process.exitCode = result.exitCode;
      } catch (error) {
        process.exitCode = printFailure(json(), error);
      }
    };
}

/** Exit codes: 1 = the command failed (bad input, conflict, unreachable database), 2 = usage error. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode = 1,
    readonly details: unknown = undefined,
  ) {
    super(message);
  }
}


export function print(options: GlobalOptions, result: CommandResult): void {
  process.stdout.write(options.json ? `${JSON.stringify(result.data, null, 2)}\n` : `${result.text}\n`);
}

export function printFailure(json: boolean, error: unknown): number {
  const failure =
    error instanceof CliError
      ? { code: error.code, message: error.message, details: error.details, exitCode: error.exitCode }
      : error instanceof AppError
        ? { code: error.code, message: error.message, details: error instanceof ValidationError ? error.problems : undefined, exitCode: 1 }
        : { code: 'error', message: error instanceof Error ? error.message : String(error), details: undefined, exitCode: 1 };
  if (json) {
    process.stdout.write(`${JSON.stringify({ error: failure.code, message: failure.message, ...(failure.details === undefined ? {} : { problems: failure.details }) }, null, 2)}\n`);
  } else {
    process.stderr.write(`schoolgate: ${failure.message}\n`);
    if (Array.isArray(failure.details)) {
      for (const problem of failure.details as Array<{ pointer: string; message: string }>) process.stderr.write(`  ${problem.pointer || '/'}: ${problem.message}\n`);
    }
  }
  return failure.exitCode;
}

/** A whole-number option within [minimum, maximum]; anything else is a usage error (exit 2). */
export function parseWholeNumber(value: string, option: string, minimum: number, maximum = Number.MAX_SAFE_INTEGER): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < minimum || number > maximum) {
    const range = maximum === Number.MAX_SAFE_INTEGER ? `at least ${minimum}` : `from ${minimum} to ${maximum}`;
    throw new CliError(`${option} "${value}" is not a whole number ${range}`, 'invalid_argument', 2);
  }
  return number;
}

/** A boolean option given as on/off, true/false, yes/no. */
export function parseSwitch(value: string): boolean {
  if (/^(on|true|yes|1)$/i.test(value)) return true;
  if (/^(off|false|no|0)$/i.test(value)) return false;
  throw new CliError(`"${value}" is not on or off`, 'invalid_argument', 2);
}

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n');
}
