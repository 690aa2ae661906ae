import fs from 'node:fs';
import { parse } from 'yaml';
import { UsageError } from './sources.js';

/**
 * Breaking changes accepted on purpose: `.ci/contract-allowlist.yaml`, a list of `{ change, reason }` where `change`
 * is the id contract:diff prints. A breaking change on the list does not fail the run; the reason is printed with it.
 */
export const DEFAULT_ALLOWLIST = '.ci/contract-allowlist.yaml';

export type Allowlist = Map<string, string>;

export function readAllowlist(file: string): Allowlist {
  if (!fs.existsSync(file)) return new Map();
  let document: unknown;
  try {
    document = parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file} is not YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  const entries = (document as { allow?: unknown } | null)?.allow ?? [];
  if (!Array.isArray(entries)) throw new UsageError(`${file}: \`allow\` must be a list of { change, reason }`);
  const allowlist: Allowlist = new Map();
  entries.forEach((entry: unknown, index) => {
    const { change, reason } = (entry ?? {}) as { change?: unknown; reason?: unknown };
    if (typeof change !== 'string' || change === '') throw new UsageError(`${file}: allow[${index}] needs \`change\`, the id contract:diff prints`);
    if (typeof reason !== 'string' || reason.trim() === '') throw new UsageError(`${file}: allow[${index}] (${change}) needs a \`reason\``);
    allowlist.set(change, reason.trim());
  });
  return allowlist;
}
