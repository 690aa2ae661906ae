import { auditServer } from 'graphql-http';
import { OAUTH_PATHS } from '../../oauth/endpoints.js';
import { VARIANT_PROFILES } from '../../variant.js';
import type { Check, CheckContext, GraphqlEndpoint } from './check.js';
import { fail, isObject, Problems, show } from './expectations.js';
import { bearerChallenge, expectStatus, mediaTypeOfAnswer, parseJsonAnswer, where, type HttpAnswer } from './http.js';

/** The spec's member API paths (Endpoints): one per variant, as the variant profiles name them. */
export const GRAPHQL_CANDIDATES: ReadonlyArray<GraphqlEndpoint & { path: string }> = VARIANT_PROFILES.map((profile) => ({ path: profile.memberGraphql.path, variant: profile.name, url: '' }));

/** Fields of the Viewer type in both variants (schema/viewer.graphql, schema/schools.graphql). */
export const VIEWER_QUERY = 'query ContractTestViewer { viewer { id name email schools { id name url isCurrent } } }';

const PROBE = JSON.stringify({ query: '{ __typename }' });
const GRAPHQL_MEDIA_TYPES = ['application/graphql-response+json', 'application/json'];

function post(context: CheckContext, url: string, body: string, token?: string): Promise<HttpAnswer> {
  return context.http.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: GRAPHQL_MEDIA_TYPES.join(', '), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body,
  });
}

/**
 * Finds the member GraphQL endpoint by asking the server, not by trusting a document: both paths of the spec are
 * POSTed an anonymous `{ __typename }`; the endpoint is the one that does not answer 404 (the member API requires a
 * token, so it answers 401). Exactly one must exist. Deterministic, needs no token, and works for either variant.
 */
export async function findGraphqlEndpoint(context: CheckContext): Promise<GraphqlEndpoint & { probe: HttpAnswer }> {
  const found: Array<GraphqlEndpoint & { probe: HttpAnswer }> = [];
  for (const candidate of GRAPHQL_CANDIDATES) {
    const url = `${context.options.baseUrl}${candidate.path}`;
    const probe = await post(context, url, PROBE);
    if (probe.status !== 404) found.push({ url, variant: candidate.variant, probe });
  }
  const only = found[0];
  if (only === undefined) fail(`neither ${GRAPHQL_CANDIDATES.map((candidate) => candidate.path).join(' nor ')} exists (both answer 404)`);
  if (found.length > 1) fail(`both ${found.map((endpoint) => `${where(endpoint.probe)}`).join(' and ')} exist; a deployment serves one variant`);
  return only;
}

async function requireEndpoint(context: CheckContext): Promise<GraphqlEndpoint> {
  try {
    return await context.graphqlEndpoint();
  } catch (error) {
    return fail(`needs the member GraphQL endpoint (graphql.endpoint): ${error instanceof Error ? error.message : String(error)}`);
  }
}

export const graphqlChecks: Check[] = [
  {
    name: 'graphql.endpoint',
    group: 'graphql',
    async run(context) {
      const endpoint = await findGraphqlEndpoint(context);
      const { probe } = endpoint;
      expectStatus(probe, 401);
      const challenge = bearerChallenge(probe.headers.get('www-authenticate'));
      if (challenge === null) fail(`${where(probe)}: WWW-Authenticate is ${show(probe.headers.get('www-authenticate'))}, expected a Bearer challenge`);
      const expected = `${context.options.baseUrl}${OAUTH_PATHS.protectedResourceMetadata}`;
      if (challenge.resource_metadata !== expected) fail(`${where(probe)}: the challenge's resource_metadata is ${show(challenge.resource_metadata)}, expected ${expected}`);
      return `${new URL(endpoint.url).pathname} (variant ${endpoint.variant}): anonymous POST → 401, resource_metadata ${expected}`;
    },
  },
  {
    name: 'graphql.audit',
    group: 'graphql',
    needs: 'memberToken',
    async run(context) {
      const endpoint = await requireEndpoint(context);
      const token = context.options.memberToken ?? '';
      const fetchFn = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${token}`);
        return context.http.fetch(input, { ...init, headers });
      };
      const results = await auditServer({ url: endpoint.url, fetchFn });
      const errors = results.filter((result) => result.status === 'error');
      const warnings = results.filter((result) => result.status === 'warn');
      const reasonOf = (result: (typeof results)[number]) => `${result.name}${'reason' in result ? `: ${result.reason}` : ''}`;
      if (errors.length > 0) fail(`${errors.length} of ${results.length} MUST audits fail: ${errors.map(reasonOf).join('; ')}`);
      const ok = results.filter((result) => result.status === 'ok').length;
      return `${results.length} graphql-http audits: ${ok} ok, ${warnings.length} SHOULD warnings${warnings.length > 0 ? ` (${warnings.map((warning) => warning.name).join('; ')})` : ''}`;
    },
  },
  {
    name: 'graphql.viewer',
    group: 'graphql',
    needs: 'memberToken',
    async run(context) {
      const endpoint = await requireEndpoint(context);
      const answer = await post(context, endpoint.url, JSON.stringify({ query: VIEWER_QUERY }), context.options.memberToken);
      expectStatus(answer, 200);
      const mediaType = mediaTypeOfAnswer(answer);
      if (!GRAPHQL_MEDIA_TYPES.includes(mediaType)) fail(`${where(answer)}: Content-Type ${mediaType || '(none)'}, expected ${GRAPHQL_MEDIA_TYPES.join(' or ')}`);
      const body = parseJsonAnswer(answer);
      if (!isObject(body)) fail(`${where(answer)}: the body is not a JSON object`);
      if (body.errors !== undefined) fail(`${where(answer)}: errors ${show(body.errors)}`);
      const viewer = isObject(body.data) ? body.data.viewer : undefined;
      if (!isObject(viewer)) fail(`${where(answer)}: data.viewer is ${show(viewer)}`);
      const problems = new Problems();
      problems.expect(typeof viewer.id === 'string' && viewer.id !== '', `viewer.id is ${show(viewer.id)}, expected a non-empty string`);
      problems.expect(viewer.name === null || typeof viewer.name === 'string', `viewer.name is ${show(viewer.name)}, expected a string or null`);
      problems.expect(typeof viewer.email === 'string' && viewer.email.includes('@'), `viewer.email is ${show(viewer.email)}, expected an email address`);
      const schools = viewer.schools;
      if (!Array.isArray(schools)) problems.add(`viewer.schools is ${show(schools)}, expected a list`);
      else {
        for (const [index, school] of schools.entries()) {
          const valid = isObject(school) && typeof school.id === 'string' && typeof school.name === 'string' && typeof school.url === 'string' && typeof school.isCurrent === 'boolean';
          problems.expect(valid, `viewer.schools[${index}] is ${show(school)}, expected { id, name, url, isCurrent }`);
        }
      }
      problems.throwIfAny();
      return `viewer ${String(viewer.id)} with ${Array.isArray(schools) ? schools.length : 0} school(s), no errors`;
    },
  },
];
