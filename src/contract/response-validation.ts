/**
 * Checks admin API answers against the contract a server serves at /openapi.json (dereferenced by
 * @readme/openapi-parser), the one implementation behind both the test suite's `AdminApi` (test/support/admin.ts) and
 * the `schoolgate contract-test` command (src/contract/contract-test/):
 * - the status must be one the operation declares (or, for paths no operation has, a problem);
 * - the Content-Type must be the declared media type (application/json or application/problem+json), and a response
 *   declared without content must have no body;
 * - every header the response declares `required` (ETag, Location, WWW-Authenticate) must be present;
 * - the body must validate against the declared schema (openapi-response-validator, formats from ajv-formats).
 *
 *   const contract = await ResponseContract.fromDocument(await (await fetch(`${origin}/openapi.json`)).json());
 *   const body = contract.validate(contract.operation('getSchool'), { method: 'GET', path, status, headers, text });
 */
import { dereference } from '@readme/openapi-parser';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { createRequire } from 'node:module';
import type * as responseValidatorModule from 'openapi-response-validator';

type Json = Record<string, unknown>;

// A CommonJS module with only `exports.default`: required as CommonJS, so every loader sees the same shape.
const require = createRequire(import.meta.url);
// (From ESM, the namespace's `default` is module.exports, whose own `default` is the class.)
const OpenAPIResponseValidator = (require('openapi-response-validator') as typeof responseValidatorModule.default).default;
type OpenAPIResponseValidator = InstanceType<typeof OpenAPIResponseValidator>;

/** Statuses any path may answer without declaring them; their bodies must be problems. */
export const UNDECLARED_PROBLEM_STATUSES: readonly number[] = [405, 413, 500, 503];

export interface ContractOperation {
  operationId: string;
  /** Upper case. */
  method: string;
  /** The path template relative to the base URL, e.g. `/oauth-applications/{clientId}`. */
  path: string;
  responses: Record<string, Json>;
}

/** One HTTP answer, as read off the wire. */
export interface ObservedResponse {
  method: string;
  /** The request path (for messages). */
  path: string;
  status: number;
  headers: Headers;
  text: string;
}

/** The answer does not match the contract; the message says where and how. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

function violation(message: string): never {
  throw new ContractViolation(message);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** ajv-formats' full formats as the plain functions openapi-response-validator accepts. */
export function customFormats(): Record<string, (value: string) => boolean> {
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

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaTypeOf(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function pathTemplateMatches(template: string, path: string): boolean {
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
  return pattern.test(path);
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The response contract of every operation of one served OpenAPI document. */
export class ResponseContract {
  private constructor(
    /** `servers[0].url` of the document: the admin API's base URL. */
    readonly baseUrl: string,
    /** The document with every local $ref replaced by its target. */
    readonly dereferenced: Json,
    private readonly byId: Map<string, ContractOperation>,
    private readonly problemValidator: OpenAPIResponseValidator,
    private readonly formats: Record<string, (value: string) => boolean>,
  ) {}

  /** Each operation's validator is compiled on first use: compiling all of them up front takes over a second. */
  private readonly validators = new Map<string, OpenAPIResponseValidator>();

  private validatorOf(operation: ContractOperation): OpenAPIResponseValidator {
    let validator = this.validators.get(operation.operationId);
    if (!validator) {
      validator = new OpenAPIResponseValidator({ responses: operation.responses as never, customFormats: this.formats });
      this.validators.set(operation.operationId, validator);
    }
    return validator;
  }

  /**
   * Prepares the validators from a served document (left untouched: a copy is dereferenced). Only local $refs are
   * followed; a document that needs anything else is refused. Throws ContractViolation when the document lacks what
   * the validators need (servers, paths, components.schemas.Problem).
   */
  static async fromDocument(document: unknown): Promise<ResponseContract> {
    if (!isObject(document)) violation('the contract is not a JSON object');
    const dereferenced = (await dereference(structuredClone(document) as never, { resolve: { external: false } })) as unknown as Json;
    const servers = dereferenced.servers;
    const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
    const baseUrl = isObject(first) && typeof first.url === 'string' ? first.url : violation('the served contract has no servers[0].url');
    const paths = isObject(dereferenced.paths) ? dereferenced.paths : violation('the served contract has no paths');
    const formats = customFormats();
    const byId = new Map<string, ContractOperation>();
    for (const [path, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.has(method) || !isObject(operation) || typeof operation.operationId !== 'string') continue;
        const responses = isObject(operation.responses) ? (operation.responses as Record<string, Json>) : {};
        byId.set(operation.operationId, { operationId: operation.operationId, method: method.toUpperCase(), path, responses });
      }
    }
    const components = isObject(dereferenced.components) ? dereferenced.components : {};
    const schemas = isObject(components.schemas) ? components.schemas : {};
    const problemSchema = isObject(schemas.Problem) ? schemas.Problem : violation('the served contract has no components.schemas.Problem');
    const problemValidator = new OpenAPIResponseValidator({ responses: { default: { schema: problemSchema } } as never, customFormats: formats });
    return new ResponseContract(baseUrl, dereferenced, byId, problemValidator, formats);
  }

  operation(operationId: string): ContractOperation | undefined {
    return this.byId.get(operationId);
  }

  operations(): ContractOperation[] {
    return [...this.byId.values()];
  }

  /** The operation a request names (method and absolute URL), if the contract has one. */
  findOperation(method: string, url: URL): ContractOperation | undefined {
    const basePath = new URL(this.baseUrl).pathname.replace(/\/$/, '');
    if (!url.pathname.startsWith(`${basePath}/`)) return undefined;
    const relative = url.pathname.slice(basePath.length);
    return this.operations().find((candidate) => candidate.method === method.toUpperCase() && pathTemplateMatches(candidate.path, relative));
  }

  /**
   * Validates one answer against `operation` (null: the request names no operation, so only a problem is right) and
   * returns its parsed body (undefined when declared without content). Throws ContractViolation.
   */
  validate(operation: ContractOperation | null | undefined, response: ObservedResponse): unknown {
    const { status, headers, text } = response;
    const where = `${response.method.toUpperCase()} ${response.path} → ${status}`;
    const declared = operation ? (operation.responses[String(status)] ?? operation.responses.default) : undefined;
    if (!declared) {
      if (operation && !UNDECLARED_PROBLEM_STATUSES.includes(status)) violation(`${where}: ${operation.operationId} declares no ${status} response`);
      return this.validateProblem(where, headers, text);
    }
    const content = isObject(declared.content) ? declared.content : undefined;
    for (const [name, header] of Object.entries(isObject(declared.headers) ? declared.headers : {})) {
      if (isObject(header) && header.required === true && !headers.has(name)) violation(`${where}: the required header ${name} is missing`);
    }
    if (!content) {
      if (text !== '') violation(`${where}: declared without content, but the body is ${JSON.stringify(text.slice(0, 200))}`);
      return undefined;
    }
    const mediaType = mediaTypeOf(headers);
    if (!Object.hasOwn(content, mediaType)) violation(`${where}: Content-Type ${mediaType || '(none)'} is not one of ${Object.keys(content).join(', ')}`);
    const body = parseJson(where, text);
    const errors = operation && this.validatorOf(operation).validateResponse(String(status) in operation.responses ? String(status) : 'default', body);
    if (errors) violation(`${where}: ${JSON.stringify(errors.errors)} in ${text.slice(0, 500)}`);
    return body;
  }

  /** An answer that must be an RFC 9457 problem of the contract's Problem schema. */
  validateProblem(where: string, headers: Headers, text: string): unknown {
    if (mediaTypeOf(headers) !== 'application/problem+json') violation(`${where}: expected application/problem+json, got ${headers.get('content-type') ?? '(none)'}`);
    const body = parseJson(where, text);
    const errors = this.problemValidator.validateResponse('default', body);
    if (errors) violation(`${where}: ${JSON.stringify(errors.errors)} in ${text.slice(0, 500)}`);
    return body;
  }
}

function parseJson(where: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return violation(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
  }
}
