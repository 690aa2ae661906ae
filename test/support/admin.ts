/**
 * Calls the admin API the way a client generated from its contract would, and checks EVERY answer against the
 * contract the server itself serves at /openapi.json (dereferenced by @readme/openapi-parser):
 * - the status must be one the operation declares (or, for paths no operation has, a problem);
 * - the Content-Type must be the declared media type (application/json or application/problem+json), and a response
 *   declared without content must have no body;
 * - every header the response declares `required` (ETag, Location, WWW-Authenticate) must be present;
 * - the body must validate against the declared schema (openapi-response-validator, formats from ajv-formats).
 * Every admin test goes through `AdminApi.call`, so the implementation cannot drift from openapi/admin.yaml.
 *
 *   const api = await AdminApi.connect(site.origin, token);
 *   const school = await api.call<School>('getSchool');        // throws if the answer breaks the contract
 *   expect(school.status).to.equal(200);
 */
import { dereference } from '@readme/openapi-parser';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { createRequire } from 'node:module';
import type * as responseValidatorModule from 'openapi-response-validator';
import type { components, operations } from '../../generated/admin-api.js';
import type { Role } from '../../src/accounts/roles.js';
import type { User } from '../../src/accounts/users.js';
import type { Audience } from '../../src/clients/scopes.js';
import type { Database } from '../../src/db/connection.js';
import type { Site } from '../../src/sites/sites.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser, type TestClient } from './oauth-fixtures.js';

export type OperationId = keyof operations;
export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];

type Json = Record<string, unknown>;

// A CommonJS module with only `exports.default`: required as CommonJS, so every loader sees the same shape.
const require = createRequire(import.meta.url);
// (From ESM, the namespace's `default` is module.exports, whose own `default` is the class.)
const OpenAPIResponseValidator = (require('openapi-response-validator') as typeof responseValidatorModule.default).default;
type OpenAPIResponseValidator = InstanceType<typeof OpenAPIResponseValidator>;

interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  responses: Record<string, Json>;
  validator: OpenAPIResponseValidator;
}

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

/** ajv-formats' full formats as the plain functions openapi-response-validator accepts. */
function customFormats(): Record<string, (value: string) => boolean> {
  const formats: Record<string, (value: string) => boolean> = {};
  for (const [name, format] of Object.entries(fullFormats)) {
    if (format instanceof RegExp) formats[name] = (value) => format.test(value);
    else if (typeof format === 'function') formats[name] = (value) => (format as (value: string) => boolean)(value);
    else if (typeof format === 'object' && format !== null && 'validate' in format) {
      const validate = (format as { validate: unknown }).validate;
      if (validate instanceof RegExp) formats[name] = (value) => validate.test(value);
      else if (typeof validate === 'function') formats[name] = (value) => Boolean((validate as (value: string) => unknown)(value));
    }
  }
  return formats;
}

function fail(message: string): never {
  throw new Error(`admin API answer breaks the contract: ${message}`);
}

function mediaTypeOf(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function pathTemplateMatches(template: string, path: string): boolean {
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
  return pattern.test(path);
}

export class AdminApi {
  private constructor(
    readonly origin: string,
    readonly token: string | null,
    /** The served /openapi.json as fetched (with its $refs). */
    readonly document: Json,
    readonly baseUrl: string,
    private readonly operations: Map<string, OperationInfo>,
    private readonly problemValidator: OpenAPIResponseValidator,
  ) {}

  /** Fetches the site's /openapi.json and prepares the response validators from it. */
  static async connect(origin: string, token: string | null): Promise<AdminApi> {
    const response = await fetch(`${origin}/openapi.json`);
    if (response.status !== 200) throw new Error(`GET ${origin}/openapi.json answered ${response.status}`);
    const document = (await response.json()) as Json;
    const dereferenced = (await dereference(structuredClone(document) as never)) as unknown as Json;
    const servers = dereferenced.servers as Array<{ url: string }>;
    const baseUrl = servers[0]?.url ?? fail('the served contract has no servers');
    const operations = new Map<string, OperationInfo>();
    const formats = customFormats();
    for (const [path, item] of Object.entries(dereferenced.paths as Record<string, Json>)) {
      for (const [method, raw] of Object.entries(item)) {
        const operation = raw as Json;
        if (typeof operation.operationId !== 'string') continue;
        const responses = operation.responses as Record<string, Json>;
        const validator = new OpenAPIResponseValidator({ responses: responses as never, customFormats: formats });
        operations.set(operation.operationId, { operationId: operation.operationId, method: method.toUpperCase(), path, responses, validator });
      }
    }
    const problemSchema = ((dereferenced.components as Json).schemas as Json).Problem as Json;
    const problemValidator = new OpenAPIResponseValidator({ responses: { default: { schema: problemSchema } } as never, customFormats: formats });
    return new AdminApi(origin, token, document, baseUrl, operations, problemValidator);
  }

  /** The same contract with another token (another operator, a member, none). */
  withToken(token: string | null): AdminApi {
    return new AdminApi(this.origin, token, this.document, this.baseUrl, this.operations, this.problemValidator);
  }

  operation(operationId: OperationId): OperationInfo {
    return this.operations.get(operationId) ?? fail(`no operation ${operationId} in the served contract`);
  }

  operationIds(): string[] {
    return [...this.operations.keys()];
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
    const basePath = new URL(this.baseUrl).pathname;
    const relative = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : null;
    const operation = relative === null ? undefined : [...this.operations.values()].find((candidate) => candidate.method === method.toUpperCase() && pathTemplateMatches(candidate.path, relative));
    const parsed = this.validate(operation ?? null, method, url.pathname, response.status, response.headers, text);
    return { status: response.status, headers: response.headers, body: parsed as B, problem: parsed as Problem, text };
  }

  private validate(operation: OperationInfo | null, method: string, path: string, status: number, headers: Headers, text: string): unknown {
    const where = `${method} ${path} → ${status}`;
    const declared = operation ? (operation.responses[String(status)] ?? operation.responses.default) : undefined;
    if (!declared) {
      // Paths and methods outside the contract, and statuses every path may give: problem+json only.
      if (operation && ![405, 413, 500, 503].includes(status)) fail(`${where}: ${operation.operationId} declares no ${status} response`);
      return this.validateProblem(where, headers, text);
    }
    const content = declared.content as Record<string, Json> | undefined;
    for (const [name, header] of Object.entries((declared.headers as Record<string, Json> | undefined) ?? {})) {
      if (header.required === true && !headers.has(name)) fail(`${where}: the required header ${name} is missing`);
    }
    if (!content) {
      if (text !== '') fail(`${where}: declared without content, but the body is ${JSON.stringify(text.slice(0, 200))}`);
      return undefined;
    }
    const mediaType = mediaTypeOf(headers);
    if (!Object.hasOwn(content, mediaType)) fail(`${where}: Content-Type ${mediaType || '(none)'} is not one of ${Object.keys(content).join(', ')}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      fail(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
    }
    const errors = operation?.validator.validateResponse(String(status) in operation.responses ? String(status) : 'default', body);
    if (errors) fail(`${where}: ${JSON.stringify(errors.errors)} in ${text.slice(0, 500)}`);
    return body;
  }

  private validateProblem(where: string, headers: Headers, text: string): unknown {
    if (mediaTypeOf(headers) !== 'application/problem+json') fail(`${where}: expected application/problem+json, got ${headers.get('content-type') ?? '(none)'}`);
    const body: unknown = JSON.parse(text);
    const errors = this.problemValidator.validateResponse('default', body);
    if (errors) fail(`${where}: ${JSON.stringify(errors.errors)} in ${text.slice(0, 500)}`);
    return body;
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
