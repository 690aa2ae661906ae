/**
 * Calls the admin API the way a client generated from its contract would, and checks EVERY answer against the
 * contract the server itself serves at /openapi.json (dereferenced by @readme/openapi-parser):
 * - the status must be one the operation declares (or, for paths no operation has, a problem);
 * - the Content-Type must be the declared media type (application/json or application/problem+json), and a response
 *   declared without content must have no body;
 * - every header the response declares `required` (ETag, Location, WWW-Authenticate) must be present;
 * - the body must validate against the declared schema (openapi-response-validator, formats from ajv-formats).
 * The checks live in src/contract/response-validation.ts, shared with `schoolgate contract-test`.
 * Every admin test goes through `AdminApi.call`, so the implementation cannot drift from openapi/admin.yaml.
 *
 *   const api = await AdminApi.connect(site.origin, token);
 *   const school = await api.call<School>('getSchool');        // throws if the answer breaks the contract
 *   expect(school.status).to.equal(200);
 */
import type { components, operations } from '../../generated/admin-api.js';
import type { Role } from '../../src/accounts/roles.js';
import type { User } from '../../src/accounts/users.js';
import type { Audience } from '../../src/clients/scopes.js';
import { ContractViolation, ResponseContract, type ContractOperation } from '../../src/contract/response-validation.js';
import type { Database } from '../../src/db/connection.js';
import type { Site } from '../../src/sites/sites.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser, type TestClient } from './oauth-fixtures.js';

export type OperationId = keyof operations;
export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];

type Json = Record<string, unknown>;

export interface AdminCallOptions {
  /** Overrides the client's token; null sends no Authorization header. */
  token?: string | null;
  /** Path parameters, percent-encoded into their segment. */
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  /** Extra query text appended as is (repeated or unknown parameters). */
  rawQuery?: string;
  headers?: Record<string, string>;
  /** Sent as JSON (Content-Type application/json unless contentType says otherwise). */
  body?: unknown;
  /** Sent as is. */
  rawBody?: string;
  contentType?: string;
}

export interface AdminResult<B = unknown> {
  status: number;
  headers: Headers;
  body: B;
  /** The problem body of an error answer (validated against Problem like every body). */
  problem: Problem;
  text: string;
}

function fail(message: string): never {
  throw new Error(`admin API answer breaks the contract: ${message}`);
}

export class AdminApi {
  private constructor(
    readonly origin: string,
    readonly token: string | null,
    /** The served /openapi.json as fetched (with its $refs). */
    readonly document: Json,
    /** The validators, shared with `schoolgate contract-test` (src/contract/response-validation.ts). */
    readonly contract: ResponseContract,
  ) {}

  get baseUrl(): string {
    return this.contract.baseUrl;
  }

  /** Fetches the site's /openapi.json and prepares the response validators from it. */
  static async connect(origin: string, token: string | null): Promise<AdminApi> {
    const response = await fetch(`${origin}/openapi.json`);
    if (response.status !== 200) throw new Error(`GET ${origin}/openapi.json answered ${response.status}`);
    const document = (await response.json()) as Json;
    return new AdminApi(origin, token, document, await ResponseContract.fromDocument(document));
  }

  /** The same contract with another token (another operator, a member, none). */
  withToken(token: string | null): AdminApi {
    return new AdminApi(this.origin, token, this.document, this.contract);
  }

  operation(operationId: OperationId): ContractOperation {
    return this.contract.operation(operationId) ?? fail(`no operation ${operationId} in the served contract`);
  }

  operationIds(): string[] {
    return this.contract.operations().map((operation) => operation.operationId);
  }

  /** Calls one operation of the contract and validates the answer against it. */
  async call<B = unknown>(operationId: OperationId, options: AdminCallOptions = {}): Promise<AdminResult<B>> {
    const operation = this.operation(operationId);
    const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = options.path?.[name];
      if (value === undefined) throw new Error(`${operationId} needs the path parameter ${name}`);
      return encodeURIComponent(value);
    });
    return this.request<B>(operation.method, path, options);
  }

  /**
   * A request to any path under the base URL (unknown paths, wrong methods): validated against the operation the
   * path and method name when there is one, else as a problem.
   */
  async request<B = unknown>(method: string, path: string, options: AdminCallOptions = {}): Promise<AdminResult<B>> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
    if (options.rawQuery) url.search = url.search ? `${url.search}&${options.rawQuery}` : `?${options.rawQuery}`;
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json', ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    const response = await fetch(url, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = this.contract.validate(this.contract.findOperation(method, url) ?? null, { method, path: url.pathname, status: response.status, headers: response.headers, text });
    } catch (error) {
      if (error instanceof ContractViolation) fail(error.message);
      throw error;
    }
    return { status: response.status, headers: response.headers, body: parsed as B, problem: parsed as Problem, text };
  }
}

/** All the scopes the first admin operations use. */
export const SCHOOL_SCOPES = ['school:read', 'school:write'];

export interface IssuedToken {
  token: string;
  user: User;
  app: TestClient;
}

/**
 * An access token issued through the real token endpoint: by default an operator client with the school scopes, for
 * a new user with the operator role at `site`.
 */
export async function issueToken(db: Database, site: Site, options: { audience?: Audience; scopes?: string[]; roles?: Role[]; user?: User } = {}): Promise<IssuedToken> {
  const audience = options.audience ?? 'operator';
  const scopes = options.scopes ?? SCHOOL_SCOPES;
  const user = options.user ?? (await makeUser(db, site, options.roles ?? ['operator'], 'Olive Operator'));
  const app = await makeClient(db, site, { audience, confidential: false, scopes });
  const grant = await issueCode(db, site, app, user, scopes.join(' '));
  const response = await exchangeCode(await discover(site.origin), app, grant);
  const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
  if (!body.access_token) throw new Error(`no token: ${body.error ?? ''} ${body.error_description ?? ''}`);
  return { token: body.access_token, user, app };
}

/** Sets the site's MCP connections beta through the API itself (reads the ETag first). */
export async function setBeta(api: AdminApi, on: boolean): Promise<void> {
  const current = await api.call('getMcpConnections');
  const etag = current.headers.get('etag');
  if (current.status !== 200 || etag === null) throw new Error(`getMcpConnections answered ${current.status}`);
  const updated = await api.call('updateMcpConnections', { headers: { 'if-match': etag }, body: { betaEnabled: on } });
  if (updated.status !== 200) throw new Error(`updateMcpConnections answered ${updated.status}: ${updated.text}`);
}
