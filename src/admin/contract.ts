import fs from 'node:fs';
import { parse } from 'yaml';
import type { operations } from '../../generated/admin-api.js';
import { isScope, MEMBER_ONLY_SCOPES, type Scope } from '../clients/scopes.js';
import { OAUTH_PATHS } from '../oauth/endpoints.js';
import { projectPath } from '../shared/paths.js';

/**
 * The admin API contract, `openapi/admin.yaml` (OpenAPI 3.1): the source of truth for routes, request validation,
 * the scope of every operation and the document served at `/openapi.json` (docs/admin-api.md).
 */

export const ADMIN_API_BASE_PATH = '/api/admin/v1';
/** Where each site serves this contract as JSON (src/admin/openapi-document.ts). */
export const OPENAPI_DOCUMENT_PATH = '/openapi.json';
export const CONTRACT_FILE = projectPath('openapi', 'admin.yaml');

export type OperationId = keyof operations;

/** Site features an operation can depend on (`x-schoolgate-feature`); while one is off its operations answer 409. */
export const FEATURES = ['mcp_connections'] as const;
export type Feature = (typeof FEATURES)[number];

/** What the server reads from one operation of the contract, once, at start-up. */
export interface OperationPolicy {
  operationId: OperationId;
  method: string;
  path: string;
  /** The one scope named by the operation's `security: [{ oauth2: [scope] }]`. */
  scope: Scope;
  feature: Feature | null;
  /** Media types of the request body; empty when the operation takes none. */
  requestMediaTypes: string[];
  /** Header parameters, by their name in the contract (e.g. `If-Match`). */
  headerParameters: string[];
  /**
   * Path parameters whose schema is `integer`: openapi-backend validates path values against their schema but hands
   * them over as strings, so the API converts these before the handler sees them (its types say `number`).
   */
  integerPathParameters: string[];
  /** The largest request body read (`x-schoolgate-max-body-bytes`; 64 KB unless the operation says otherwise). */
  maxBodyBytes: number;
}

/** The request body limit of an operation that names none: every admin resource fits in it. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Each contract file as JSON text: a tenth of the memory of its parsed tree, which keeps every YAML scalar's source. */
const parsedText = new Map<string, string>();

/**
 * The contract as a fresh object: openapi-backend dereferences the object it is given in place, so each user gets its
 * own copy. The YAML is read and parsed once per process (parsing ten thousand lines costs about half a second); the
 * copies come from its JSON text.
 */
export function readContract(file = CONTRACT_FILE): JsonObject {
  let text = parsedText.get(file);
  if (text === undefined) {
    const value: unknown = parse(fs.readFileSync(file, 'utf8'));
    if (!isObject(value)) throw new Error(`${file} is not an OpenAPI document`);
    text = JSON.stringify(value);
    parsedText.set(file, text);
  }
  return JSON.parse(text) as JsonObject;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function resolveLocalRef(document: JsonObject, value: unknown): unknown {
  if (!isObject(value) || typeof value.$ref !== 'string') return value;
  const ref = value.$ref;
  if (!ref.startsWith('#/')) throw new Error(`the admin contract uses a non-local $ref ${ref}`);
  let target: unknown = document;
  for (const part of ref.slice(2).split('/')) target = isObject(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  if (target === undefined) throw new Error(`the admin contract's $ref ${ref} points nowhere`);
  return target;
}

/** `components.securitySchemes.oauth2.flows.authorizationCode` of the contract. */
function oauth2Flow(document: JsonObject): JsonObject | undefined {
  let node: unknown = document;
  for (const key of ['components', 'securitySchemes', 'oauth2', 'flows', 'authorizationCode']) node = isObject(node) ? node[key] : undefined;
  return isObject(node) ? node : undefined;
}

/**
 * Every operation's policy, read from the contract. Start-up fails when an operation does not name exactly one
 * requirement with exactly one scope of the oauth2 scheme (nothing is reachable without one), when that scope is an
 * unknown or member-only one, or when it names an unknown feature.
 */
export function readOperationPolicies(document: JsonObject): Map<OperationId, OperationPolicy> {
  const policies = new Map<OperationId, OperationPolicy>();
  const declaredScopes = oauth2Flow(document)?.scopes;
  if (!isObject(declaredScopes)) throw new Error('the admin contract declares no oauth2 authorizationCode scopes');
  const paths = document.paths;
  if (!isObject(paths)) throw new Error('the admin contract has no paths');
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = resolveLocalRef(document, rawItem);
    if (!isObject(item)) continue;
    const pathParameters = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const operationId = operation.operationId;
      if (typeof operationId !== 'string') throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const where = `${operationId} (${method.toUpperCase()} ${path})`;
      const security = operation.security;
      if (!Array.isArray(security) || security.length !== 1 || !isObject(security[0])) throw new Error(`${where} must have exactly one security requirement`);
      const requirement = security[0];
      const schemes = Object.keys(requirement);
      const scopes = requirement.oauth2;
      if (schemes.length !== 1 || !Array.isArray(scopes) || scopes.length !== 1 || typeof scopes[0] !== 'string') {
        throw new Error(`${where} must require exactly one scope of the oauth2 scheme`);
      }
      const scope = scopes[0];
      if (!isScope(scope) || MEMBER_ONLY_SCOPES.includes(scope) || !Object.hasOwn(declaredScopes, scope)) {
        throw new Error(`${where} requires "${scope}", which is not an operator scope of the oauth2 scheme`);
      }
      const featureValue = operation['x-schoolgate-feature'];
      const feature = featureValue === undefined ? null : FEATURES.find((known) => known === featureValue);
      if (feature === undefined) throw new Error(`${where} names an unknown x-schoolgate-feature ${String(featureValue)}`);
      const requestBody = resolveLocalRef(document, operation.requestBody);
      const content = isObject(requestBody) && isObject(requestBody.content) ? Object.keys(requestBody.content) : [];
      const parameters = [...pathParameters, ...(Array.isArray(operation.parameters) ? operation.parameters : [])].map((parameter) => resolveLocalRef(document, parameter));
      const named = (location: string) => parameters.filter((parameter): parameter is JsonObject & { name: string } => isObject(parameter) && parameter.in === location && typeof parameter.name === 'string');
      const headerParameters = named('header').map((parameter) => parameter.name);
      const integerPathParameters = named('path')
        .filter((parameter) => {
          const schema = resolveLocalRef(document, parameter.schema);
          return isObject(schema) && schema.type === 'integer';
        })
        .map((parameter) => parameter.name);
      const maxBodyValue = operation['x-schoolgate-max-body-bytes'];
      if (maxBodyValue !== undefined && !(Number.isSafeInteger(maxBodyValue) && (maxBodyValue as number) > 0)) throw new Error(`${where} has an x-schoolgate-max-body-bytes that is not a positive integer`);
      const maxBodyBytes = maxBodyValue === undefined ? DEFAULT_MAX_BODY_BYTES : (maxBodyValue as number);
      policies.set(operationId as OperationId, { operationId: operationId as OperationId, method, path, scope, feature, requestMediaTypes: content, headerParameters, integerPathParameters, maxBodyBytes });
    }
  }
  return policies;
}

/**
 * The contract as `GET /openapi.json` serves it on one site: `servers` is that site's admin base URL, and the OAuth
 * flow URLs are absolute on its origin. Built from a parse of its own, never from openapi-backend's copy.
 */
export function servedContract(origin: string): JsonObject {
  const document = readContract();
  document.servers = [{ url: `${origin}${ADMIN_API_BASE_PATH}`, description: 'This school site' }];
  const flow = oauth2Flow(document);
  if (!flow) throw new Error('the admin contract has no oauth2 authorizationCode flow');
  flow.authorizationUrl = `${origin}${OAUTH_PATHS.authorize}`;
  flow.tokenUrl = `${origin}${OAUTH_PATHS.token}`;
  flow.refreshUrl = `${origin}${OAUTH_PATHS.token}`;
  return document;
}
