import { DatabaseUnavailableError } from './errors.js';
import { classifyFailure, isRetryable } from './failure.js';
import type { Logger } from './logger.js';

/** The driver's code or the error's name: enough to tell outages apart, never the message (it may name the database's address). */
function causeOf(raw: unknown): string {
  const code = (raw as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return raw instanceof Error ? raw.name : typeof raw;
}

/**
 * How an interface logs a failure it answered with a 5xx. A fault of ours: at error, with the error and its stack. An
 * outage (the database did not answer, a conflict was lost): one line at warn without a stack, since the cause is
 * outside and the database health state logs it once per change (src/db/health.ts); a request shed while the
 * database is known down only at debug, since that line already counts it.
 */
export function logFailure(log: Logger, raw: unknown, message: string, fields: Record<string, unknown> = {}): void {
  const failure = classifyFailure(raw);
  if (!isRetryable(failure)) {
    log.error({ ...fields, err: raw }, message);
    return;
  }
  const outage = { ...fields, failure: failure.kind, cause: causeOf(raw) };
  if (raw instanceof DatabaseUnavailableError) log.debug(outage, `${message}: shed while the database does not answer`);
  else log.warn(outage, `${message}: ${failure.kind === 'conflict_lost' ? 'a conflict was lost' : 'the database did not answer'}`);
}
