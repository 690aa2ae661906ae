import type { Metrics } from '../metrics/metrics.js';

/**
 * Who still uses a deprecated element (docs/versioning.md, "Who still uses a deprecated element"): the usage counts
 * of every element (src/usage/tally.ts, table `api_usage`, docs/usage.md) read for the deprecated ones
 * (src/deprecations/report.ts). The metric `deprecatedUses` counts deprecated elements only, so its labels stay
 * bounded by the contracts.
 */

/** `graphql`: a schema coordinate of the member API (`Course.slug`); `admin`: an admin API operationId. */
export type DeprecatedApi = 'graphql' | 'admin';

/** Adds the calls of deprecated elements to the metric (per API and element; clients are in the report, not in a label). */
export function countDeprecatedUses(metrics: Metrics, api: DeprecatedApi, elements: readonly string[]): void {
  for (const element of elements) metrics.deprecatedUses.inc({ api, element });
}
