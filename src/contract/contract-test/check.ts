import type { ResponseContract } from '../response-validation.js';
import type { HttpClient } from './http.js';
import type { Variant } from '../../variant.js';

/** What a check concluded: `skip` only when it needs a token that was not given. */
export type CheckResult = 'pass' | 'fail' | 'skip';

export interface CheckOutcome {
  result: CheckResult;
  detail: string;
}

/** One row of the report. */
export interface CheckReport extends CheckOutcome {
  name: string;
  group: CheckGroup;
  durationMs: number;
}

export type CheckGroup = 'openapi' | 'discovery' | 'graphql' | 'admin';

export interface ContractTestOptions {
  /** The deployment's `{base_url}`: a site origin such as https://school.example (no trailing slash). */
  baseUrl: string;
  /** An operator access token (operator-audience client, `school:read`) for the admin API checks. */
  token?: string;
  /** A member access token (`account:read`) for the member GraphQL checks. */
  memberToken?: string;
  /** Per request. */
  timeoutMs: number;
}

/** The served admin contract, fetched once and shared by the OpenAPI and admin checks. */
export interface LoadedContract {
  /** /openapi.json as served. */
  document: Record<string, unknown>;
  validators: ResponseContract;
}

/** The member GraphQL endpoint found by the graphql.endpoint check. */
export interface GraphqlEndpoint {
  url: string;
  variant: Variant;
}

export interface CheckContext {
  options: ContractTestOptions;
  http: HttpClient;
  /** Memoised: the first caller fetches, later callers share the result (or the failure). */
  contract(): Promise<LoadedContract>;
  authorizationServerMetadata(): Promise<Record<string, unknown>>;
  graphqlEndpoint(): Promise<GraphqlEndpoint>;
}

/**
 * One check. `run` returns the detail of a pass (a note, possibly empty) or an explicit outcome; it fails by throwing
 * (a CheckFailure, or any error: its message becomes the detail). `needs` names the token without which it is skipped.
 */
export interface Check {
  name: string;
  group: CheckGroup;
  needs?: 'token' | 'memberToken';
  run(context: CheckContext): Promise<string | CheckOutcome>;
}
