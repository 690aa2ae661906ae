import { validate } from '@readme/openapi-parser';
import { ADMIN_API_BASE_PATH, OPENAPI_DOCUMENT_PATH } from '../../admin/contract.js';
import { ResponseContract } from '../response-validation.js';
import type { Check, CheckContext, LoadedContract } from './check.js';
import { expectObject, fail, isObject, Problems, show } from './expectations.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** GET /openapi.json, checked to be a valid OpenAPI 3.1 document; shared by every check that needs the contract. */
export async function loadContract(context: CheckContext): Promise<LoadedContract> {
  const { body } = await context.http.getJson(`${context.options.baseUrl}${OPENAPI_DOCUMENT_PATH}`);
  const document = expectObject(body, OPENAPI_DOCUMENT_PATH);
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1.')) fail(`${OPENAPI_DOCUMENT_PATH} declares openapi ${show(document.openapi)}, expected 3.1.x`);
  // validate() dereferences what it is given, so it gets a copy; only local $refs are followed.
  const result = await validate(structuredClone(document) as never, { resolve: { external: false }, validate: { errors: { colorize: false } } });
  if (!result.valid) {
    const more = result.additionalErrors > 0 ? ` (and ${result.additionalErrors} more)` : '';
    fail(`${OPENAPI_DOCUMENT_PATH} is not a valid OpenAPI 3.1 document: ${result.errors.map((error) => error.message.replace(/\s+/g, ' ').trim()).join('; ')}${more}`);
  }
  let validators: ResponseContract;
  try {
    validators = await ResponseContract.fromDocument(document);
  } catch (error) {
    return fail(`${OPENAPI_DOCUMENT_PATH}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { document, validators };
}

/** The contract for a check that depends on it; a broken contract fails the dependants too, naming the cause. */
export async function requireContract(context: CheckContext): Promise<LoadedContract> {
  try {
    return await context.contract();
  } catch (error) {
    return fail(`needs the served contract, which failed (openapi.document): ${error instanceof Error ? error.message : String(error)}`);
  }
}

interface Operation {
  where: string;
  operation: Record<string, unknown>;
}

function operationsOf(document: Record<string, unknown>): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (isObject(operation)) operations.push({ where: `${typeof operation.operationId === 'string' ? operation.operationId : '(no operationId)'} (${method.toUpperCase()} ${path})`, operation });
    }
  }
  return operations;
}

/** `components.securitySchemes` entries of type oauth2. */
function oauth2Schemes(document: Record<string, unknown>): Array<[string, Record<string, unknown>]> {
  const components = isObject(document.components) ? document.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  return Object.entries(schemes).filter((entry): entry is [string, Record<string, unknown>] => isObject(entry[1]) && entry[1].type === 'oauth2');
}

export const openapiChecks: Check[] = [
  {
    name: 'openapi.document',
    group: 'openapi',
    async run(context) {
      const { document, validators } = await context.contract();
      const info = isObject(document.info) ? document.info : {};
      return `OpenAPI ${String(document.openapi)}, ${show(info.title)} ${show(info.version)}, ${validators.operations().length} operations`;
    },
  },
  {
    name: 'openapi.servers',
    group: 'openapi',
    async run(context) {
      const { document } = await requireContract(context);
      const expected = `${context.options.baseUrl}${ADMIN_API_BASE_PATH}`;
      const servers = Array.isArray(document.servers) ? document.servers : [];
      const first: unknown = servers[0];
      const url = isObject(first) ? first.url : undefined;
      if (url !== expected) fail(`servers[0].url is ${show(url)}, expected ${expected}`);
      return `servers[0].url = ${expected}`;
    },
  },
  {
    name: 'openapi.oauth2-flows',
    group: 'openapi',
    async run(context) {
      const { document } = await requireContract(context);
      const schemes = oauth2Schemes(document);
      if (schemes.length === 0) fail('components.securitySchemes has no oauth2 scheme');
      const origin = new URL(context.options.baseUrl).origin;
      const problems = new Problems();
      let urls = 0;
      for (const [schemeName, scheme] of schemes) {
        const flows = isObject(scheme.flows) ? scheme.flows : {};
        if (Object.keys(flows).length === 0) problems.add(`${schemeName} has no flows`);
        for (const [flowName, flow] of Object.entries(flows)) {
          if (!isObject(flow)) continue;
          for (const field of ['authorizationUrl', 'tokenUrl', 'refreshUrl'] as const) {
            const value = flow[field];
            if (value === undefined) continue;
            urls += 1;
            let url: URL | null = null;
            try {
              url = typeof value === 'string' ? new URL(value) : null;
            } catch {
              url = null;
            }
            if (url === null) problems.add(`${schemeName}.${flowName}.${field} ${show(value)} is not an absolute URL`);
            else problems.expect(url.origin === origin, `${schemeName}.${flowName}.${field} ${show(value)} is not on ${origin}`);
          }
        }
      }
      problems.throwIfAny();
      return `${urls} flow URLs, all on ${origin}`;
    },
  },
  {
    name: 'openapi.scopes',
    group: 'openapi',
    async run(context) {
      const { document } = await requireContract(context);
      const schemes = new Map(oauth2Schemes(document));
      const problems = new Problems();
      const operations = operationsOf(document);
      if (operations.length === 0) fail('the contract has no operations');
      for (const { where, operation } of operations) {
        const security = operation.security ?? document.security;
        const requirement: unknown = Array.isArray(security) && security.length === 1 ? security[0] : undefined;
        if (!isObject(requirement) || Object.keys(requirement).length !== 1) {
          problems.add(`${where} does not have exactly one security requirement`);
          continue;
        }
        const [schemeName, scopes] = Object.entries(requirement)[0] ?? [];
        const scheme = schemeName === undefined ? undefined : schemes.get(schemeName);
        if (!scheme) {
          problems.add(`${where} names ${show(schemeName)}, not an oauth2 scheme`);
          continue;
        }
        if (!Array.isArray(scopes) || scopes.length !== 1 || typeof scopes[0] !== 'string') {
          problems.add(`${where} requires ${show(scopes)}, not exactly one scope`);
          continue;
        }
        const declared = Object.values(isObject(scheme.flows) ? scheme.flows : {}).some((flow) => isObject(flow) && isObject(flow.scopes) && Object.hasOwn(flow.scopes, scopes[0] as string));
        problems.expect(declared, `${where} requires ${show(scopes[0])}, which ${schemeName} does not declare`);
      }
      problems.throwIfAny();
      return `${operations.length} operations, each requiring exactly one declared scope`;
    },
  },
];
