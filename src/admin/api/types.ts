import type { operations } from '../../../generated/admin-api.js';
import type { VariantProfile } from '../../variant.js';
import type { Database } from '../../db/connection.js';
import type { SiteContext } from '../../http/state.js';
import type { Logger } from '../../shared/logger.js';
import type { Site } from '../../sites/sites.js';
import type { OperationId } from '../contract.js';
import type { OperatorPrincipal } from './security.js';

/**
 * Handler types derived from openapi-typescript's output (generated/admin-api.ts): what a handler of `operations[K]`
 * receives (its path, query and header parameters and JSON body, already validated against the contract) and the
 * success answers it may give (status, body and the headers the contract requires). Errors are thrown, never
 * returned: the API renders them as problem+json.
 */

type Operation<K extends OperationId> = operations[K];
type Defined<T> = [Exclude<T, undefined>] extends [never] ? Record<string, never> : Exclude<T, undefined>;

export type PathParameters<K extends OperationId> = Defined<Operation<K>['parameters']['path']>;
export type QueryParameters<K extends OperationId> = Defined<Operation<K>['parameters']['query']>;
export type HeaderParameters<K extends OperationId> = Defined<Operation<K>['parameters']['header']>;

/** The JSON body (`application/json`; `application/merge-patch+json` shares its schema), or undefined. */
export type RequestBody<K extends OperationId> = Operation<K> extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : Operation<K> extends { requestBody?: { content: { 'application/json': infer Body } } }
    ? Body | undefined
    : undefined;

type Responses<K extends OperationId> = Operation<K>['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 204>;

/** The named headers of a response (without the `[name: string]: unknown` index signature), as strings. */
type NamedHeaders<H> = { [P in keyof H as string extends P ? never : P]: string };

type ResponseFor<R, S> = { status: S } & (R extends { content: { 'application/json': infer Body } } ? { body: Body } : { body?: undefined }) &
  (R extends { headers: infer H } ? (keyof NamedHeaders<H> extends never ? { headers?: Record<string, string> } : { headers: NamedHeaders<H> & Record<string, string> }) : { headers?: Record<string, string> });

export type AdminResponse<K extends OperationId> = { [S in SuccessStatus<K>]: ResponseFor<Responses<K>[S], S> }[SuccessStatus<K>];

export interface AdminRequest<K extends OperationId> {
  operationId: K;
  /** The site of the request's origin: every handler reads and writes this site's data only. */
  site: Site;
  db: Database;
  /** The deployment's variant profile (whose member API deprecations the admin API reports). */
  variant: VariantProfile;
  /** Days of usage counts kept (SCHOOLGATE_USAGE_RETENTION_DAYS): the longest window a usage report answers. */
  usageRetentionDays: number;
  principal: OperatorPrincipal;
  log: Logger;
  /** `{origin}/api/admin/v1`, for Location headers. */
  baseUrl: string;
  path: PathParameters<K>;
  query: QueryParameters<K>;
  headers: HeaderParameters<K>;
  body: RequestBody<K>;
  ctx: SiteContext;
}

export type AdminHandler<K extends OperationId> = (request: AdminRequest<K>) => Promise<AdminResponse<K>>;

/** One handler per operation of the contract; the compiler refuses a missing or misspelt one. */
export type AdminHandlers = { [K in OperationId]: AdminHandler<K> };
