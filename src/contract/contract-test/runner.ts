import { adminChecks } from './admin.js';
import type { Check, CheckContext, CheckOutcome, CheckReport, ContractTestOptions } from './check.js';
import { CheckFailure } from './expectations.js';
import { discoveryChecks, fetchAuthorizationServerMetadata } from './discovery.js';
import { findGraphqlEndpoint, graphqlChecks } from './graphql.js';
import { HttpClient } from './http.js';
import { loadContract, openapiChecks } from './openapi.js';

/** Every check, in report order: the served contract, discovery, the member GraphQL API, the admin API. */
export function defaultChecks(): Check[] {
  return [...openapiChecks, ...discoveryChecks, ...graphqlChecks, ...adminChecks];
}

export interface ContractTestReport {
  baseUrl: string;
  /** True when no check failed (skipped checks do not count against it). */
  ok: boolean;
  counts: Record<CheckOutcome['result'], number>;
  checks: CheckReport[];
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= load());
}

const TOKEN_OPTION = { token: '--token', memberToken: '--member-token' } as const;

/** Runs the checks one after another (so the report's order and the load on the deployment are predictable). */
export async function runContractTest(options: ContractTestOptions, checks: readonly Check[] = defaultChecks()): Promise<ContractTestReport> {
  const http = new HttpClient(options.timeoutMs);
  const context: CheckContext = {
    options,
    http,
    contract: once(() => loadContract(context)),
    authorizationServerMetadata: once(() => fetchAuthorizationServerMetadata(context)),
    graphqlEndpoint: once(() => findGraphqlEndpoint(context)),
  };
  const reports: CheckReport[] = [];
  for (const check of checks) {
    const started = Date.now();
    let outcome: CheckOutcome;
    if (check.needs !== undefined && !options[check.needs]) {
      outcome = { result: 'skip', detail: `needs ${TOKEN_OPTION[check.needs]}` };
    } else {
      try {
        const result = await check.run(context);
        outcome = typeof result === 'string' ? { result: 'pass', detail: result } : result;
      } catch (error) {
        outcome = { result: 'fail', detail: error instanceof CheckFailure ? error.message : `${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}` };
      }
    }
    reports.push({ name: check.name, group: check.group, ...outcome, durationMs: Date.now() - started });
  }
  const counts = { pass: 0, fail: 0, skip: 0 };
  for (const report of reports) counts[report.result] += 1;
  return { baseUrl: options.baseUrl, ok: counts.fail === 0, counts, checks: reports };
}
