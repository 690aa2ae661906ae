import type { UsageExport } from '../../usage/export-format.js';
import type { ContractChange } from './changes.js';
import { UsageError, type ContractSources } from './sources.js';
import { trustedDocumentChanges } from './trusted-documents.js';
import { judgeByUsage, parseDays } from './usage.js';
import { readUsage } from './usage-source.js';

/**
 * `contract:diff --usage FILE|URL [--days N] [--site ORIGIN]` (docs/contract-workflow.md): the options, and the one
 * step main.ts takes with them. The export is read and checked before anything is compared, so a bad one stops the
 * run with exit 2 and no report.
 */

export const USAGE_OPTIONS = { usage: { type: 'string' }, days: { type: 'string' }, site: { type: 'string' } } as const;

export const USAGE_SYNOPSIS = '[--usage FILE|URL [--days N] [--site ORIGIN]]';

export interface UsageInput {
  usage: UsageExport;
  /** The days judged: the last `days` days of the export. */
  days: number;
}

/** What the report says about the usage it was judged by. */
export interface UsageSummary {
  site: string;
  variant: string;
  /** The days judged, ending on `to`. */
  days: number;
  to: string;
  /** The export's own window (its counts cover it). */
  exportFrom: string;
  exportDays: number;
  /** Breaking changes used in the judged days, and not used. */
  usedBreaking: number;
  unusedBreaking: number;
  invalidatedDocuments: number;
}

export async function usageInput(values: { usage?: string | undefined; days?: string | undefined; site?: string | undefined }, environment: NodeJS.ProcessEnv = process.env): Promise<UsageInput | null> {
  if (values.usage === undefined) {
    if (values.days !== undefined || values.site !== undefined) throw new UsageError(`--days and --site go with --usage FILE|URL`);
    return null;
  }
  if (values.usage === '') throw new UsageError('--usage needs a file or a URL');
  const days = parseDays(values.days);
  const usage = await readUsage(values.usage, { days, ...(values.site === undefined ? {} : { site: values.site }), environment });
  return { usage, days };
}

/** The changes judged by usage, with a breaking row for every trusted document the change invalidates. */
export function judgeChanges(changes: readonly ContractChange[], base: ContractSources, head: ContractSources, input: UsageInput | null): ContractChange[] {
  if (input === null) return [...changes];
  return [...judgeByUsage(changes, input.usage, input.days), ...trustedDocumentChanges(base, head, input.usage)];
}

export function usageSummary(input: UsageInput, changes: readonly ContractChange[]): UsageSummary {
  const breaking = changes.filter((change) => change.severity === 'breaking');
  return {
    site: input.usage.site,
    variant: input.usage.variant,
    days: input.days,
    to: input.usage.to,
    exportFrom: input.usage.from,
    exportDays: input.usage.days,
    usedBreaking: breaking.filter((change) => change.usage?.verdict === 'used').length,
    unusedBreaking: breaking.filter((change) => change.usage?.verdict === 'unused').length,
    invalidatedDocuments: changes.filter((change) => change.trustedDocument !== undefined).length,
  };
}

/** The line under the report's verdict that says which traffic judged it. */
export function usageHeadline(summary: UsageSummary): string {
  const counts = summary.exportDays === summary.days ? '' : ` (counts cover the export's ${summary.exportDays} days from ${summary.exportFrom})`;
  const documents = summary.invalidatedDocuments === 0 ? 'no trusted document invalidated' : `**${summary.invalidatedDocuments} trusted document${summary.invalidatedDocuments === 1 ? '' : 's'} invalidated**`;
  return `Judged by the usage of ${summary.site} (variant ${summary.variant}) in the ${summary.days} days to ${summary.to}${counts}: ${summary.usedBreaking} breaking change${summary.usedBreaking === 1 ? '' : 's'} used, ${summary.unusedBreaking} unused; ${documents}.`;
}
