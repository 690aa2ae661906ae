import { ADMIN_API_BASE_PATH } from '../../admin/contract.js';
import { OAUTH_PATHS } from '../../oauth/endpoints.js';
import { ContractViolation } from '../response-validation.js';
import type { Check, CheckContext, LoadedContract } from './check.js';
import { fail, isObject, show } from './expectations.js';
import { bearerChallenge, where, type HttpAnswer } from './http.js';
import { requireContract } from './openapi.js';

/**
 * Sample admin API calls, each answer validated against the contract the server serves (status, Content-Type,
 * required headers, body schema: src/contract/response-validation.ts, the same code the test suite's AdminApi uses).
 * Requests go to `{base_url}/api/admin/v1`, never to whatever `servers` names, so a token only ever reaches the base
 * origin (openapi.servers checks that the two agree).
 */

interface AdminCall {
  contract: LoadedContract;
  answer: HttpAnswer;
  body: unknown;
}

async function callOperation(context: CheckContext, operationId: string, token: string | null): Promise<AdminCall> {
  const contract = await requireContract(context);
  const operation = contract.validators.operation(operationId) ?? fail(`the served contract has no operation ${operationId}`);
  if (/\{[^}]+\}/.test(operation.path)) fail(`${operationId} takes path parameters; the contract test only calls operations without them`);
  const url = `${context.options.baseUrl}${ADMIN_API_BASE_PATH}${operation.path}`;
  const answer = await context.http.request(url, {
    method: operation.method,
    headers: { accept: 'application/json, application/problem+json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
  });
  let body: unknown;
  try {
    body = contract.validators.validate(operation, { method: answer.method, path: answer.url.pathname, status: answer.status, headers: answer.headers, text: answer.text });
  } catch (error) {
    if (error instanceof ContractViolation) fail(`breaks the contract: ${error.message}`);
    throw error;
  }
  return { contract, answer, body };
}

function problemCode(body: unknown): string | undefined {
  return isObject(body) && typeof body.code === 'string' ? body.code : undefined;
}

function expectChallenge(context: CheckContext, answer: HttpAnswer): string {
  const header = answer.headers.get('www-authenticate');
  const challenge = bearerChallenge(header);
  if (challenge === null) fail(`${where(answer)}: WWW-Authenticate is ${show(header)}, expected a Bearer challenge`);
  const expected = `${context.options.baseUrl}${OAUTH_PATHS.protectedResourceMetadata}`;
  if (challenge.resource_metadata !== expected) fail(`${where(answer)}: resource_metadata is ${show(challenge.resource_metadata)}, expected ${expected}`);
  return header ?? '';
}

/** An operator read: 200 matching the contract, with an ETag (the If-Match value of its update) when `etag`. */
function readCheck(name: string, operationId: string, etag: boolean, describe: (body: unknown) => string): Check {
  return {
    name,
    group: 'admin',
    needs: 'token',
    async run(context) {
      const { answer, body } = await callOperation(context, operationId, context.options.token ?? null);
      if (answer.status !== 200) fail(`${where(answer)} (${show(problemCode(body) ?? answer.text.slice(0, 200))}), expected 200`);
      const tag = answer.headers.get('etag');
      if (etag && !tag) fail(`${where(answer)}: no ETag header`);
      return `${where(answer)}, ${describe(body)}${tag ? `, ETag ${tag}` : ''}, matches the contract`;
    },
  };
}

export const adminChecks: Check[] = [
  {
    name: 'admin.no-token',
    group: 'admin',
    async run(context) {
      const { answer, body } = await callOperation(context, 'getSchool', null);
      if (answer.status !== 401) fail(`${where(answer)} without a token, expected 401`);
      if (answer.headers.get('content-type')?.split(';')[0]?.trim() !== 'application/problem+json') fail(`${where(answer)}: not application/problem+json`);
      expectChallenge(context, answer);
      return `${where(answer)} ${show(problemCode(body))} problem with a Bearer challenge`;
    },
  },
  readCheck('admin.getSchool', 'getSchool', true, (body) => `school ${show(isObject(body) ? body.name : undefined)}`),
  readCheck('admin.getMcpConnections', 'getMcpConnections', true, (body) => `betaEnabled ${show(isObject(body) ? body.betaEnabled : undefined)}`),
  {
    name: 'admin.listOAuthApplications',
    group: 'admin',
    needs: 'token',
    async run(context) {
      const { answer, body } = await callOperation(context, 'listOAuthApplications', context.options.token ?? null);
      if (answer.status === 409 && problemCode(body) === 'mcp_connections_disabled') {
        return `${where(answer)} mcp_connections_disabled: the MCP connections beta is off on this site, so the list is unavailable (the problem matches the contract)`;
      }
      if (answer.status !== 200) fail(`${where(answer)} (${show(problemCode(body) ?? answer.text.slice(0, 200))}), expected 200 or 409 mcp_connections_disabled`);
      const items = isObject(body) && Array.isArray(body.data) ? body.data.length : '?';
      return `${where(answer)}, ${items} application(s) on the first page, matches the contract`;
    },
  },
  {
    name: 'admin.member-token-refused',
    group: 'admin',
    needs: 'memberToken',
    async run(context) {
      const { answer, body } = await callOperation(context, 'getSchool', context.options.memberToken ?? null);
      if (answer.status !== 401 && answer.status !== 403) fail(`${where(answer)} with a member token, expected 401 or 403`);
      expectChallenge(context, answer);
      return `${where(answer)} ${show(problemCode(body))} problem`;
    },
  },
];
