import { importJWK, type JWK } from 'jose';
import { ALL_SCOPES } from '../../clients/scopes.js';
import { OAUTH_PATHS } from '../../oauth/endpoints.js';
import type { Check, CheckContext } from './check.js';
import { expectObject, fail, isObject, Problems, show, stringArray } from './expectations.js';

/**
 * The discovery documents, against the spec's Endpoints and Discovery sections: the paths of the Endpoints table are
 * fixed (`{base_url}{path}`), the issuer and the protected resource are `{base_url}` itself, id_tokens are ES256.
 */

/** The spec's id_token algorithm (Resources, Token response). */
const ID_TOKEN_ALG = 'ES256';

/** RFC 8414 endpoints the spec's Endpoints table fixes. */
const AUTHORIZATION_SERVER_ENDPOINTS = {
  authorization_endpoint: OAUTH_PATHS.authorize,
  token_endpoint: OAUTH_PATHS.token,
  userinfo_endpoint: OAUTH_PATHS.userinfo,
  revocation_endpoint: OAUTH_PATHS.revoke,
  registration_endpoint: OAUTH_PATHS.register,
} as const;

export async function fetchAuthorizationServerMetadata(context: CheckContext): Promise<Record<string, unknown>> {
  const { body } = await context.http.getJson(`${context.options.baseUrl}${OAUTH_PATHS.authorizationServerMetadata}`);
  return expectObject(body, OAUTH_PATHS.authorizationServerMetadata);
}

function includes(problems: Problems, document: Record<string, unknown>, field: string, required: readonly string[]): void {
  const values = stringArray(document[field]);
  if (values === null) {
    problems.add(`${field} is ${show(document[field])}, expected an array of strings`);
    return;
  }
  const missing = required.filter((value) => !values.includes(value));
  problems.expect(missing.length === 0, `${field} lacks ${missing.join(', ')}`);
}

function urlOn(problems: Problems, document: Record<string, unknown>, field: string, origin: string): string | null {
  const value = document[field];
  try {
    if (typeof value === 'string' && new URL(value).origin === origin) return value;
  } catch {
    // reported below
  }
  problems.add(`${field} is ${show(value)}, expected a URL on ${origin}`);
  return null;
}

export const discoveryChecks: Check[] = [
  {
    name: 'discovery.protected-resource',
    group: 'discovery',
    async run(context) {
      const base = context.options.baseUrl;
      const { body } = await context.http.getJson(`${base}${OAUTH_PATHS.protectedResourceMetadata}`);
      const document = expectObject(body, OAUTH_PATHS.protectedResourceMetadata);
      const problems = new Problems();
      problems.expect(document.resource === base, `resource is ${show(document.resource)}, expected ${base}`);
      const servers = stringArray(document.authorization_servers);
      if (servers === null || servers.length === 0) problems.add(`authorization_servers is ${show(document.authorization_servers)}, expected a non-empty array of issuers`);
      else problems.expect(servers.includes(base), `authorization_servers ${show(servers)} does not name ${base}`);
      const bearer = document.bearer_methods_supported;
      if (bearer !== undefined) includes(problems, document, 'bearer_methods_supported', ['header']);
      problems.throwIfAny();
      return `resource ${base}, authorization_servers ${show(servers)}`;
    },
  },
  {
    name: 'discovery.authorization-server',
    group: 'discovery',
    async run(context) {
      const base = context.options.baseUrl;
      const origin = new URL(base).origin;
      const document = await context.authorizationServerMetadata();
      const problems = new Problems();
      problems.expect(document.issuer === base, `issuer is ${show(document.issuer)}, expected ${base}`);
      for (const [field, path] of Object.entries(AUTHORIZATION_SERVER_ENDPOINTS)) {
        problems.expect(document[field] === `${base}${path}`, `${field} is ${show(document[field])}, expected ${base}${path}`);
      }
      urlOn(problems, document, 'jwks_uri', origin);
      includes(problems, document, 'response_types_supported', ['code']);
      if (document.grant_types_supported !== undefined) includes(problems, document, 'grant_types_supported', ['authorization_code', 'refresh_token']);
      includes(problems, document, 'code_challenge_methods_supported', ['S256']);
      includes(problems, document, 'token_endpoint_auth_methods_supported', ['none', 'client_secret_post']);
      problems.expect(document.client_id_metadata_document_supported === true, `client_id_metadata_document_supported is ${show(document.client_id_metadata_document_supported)}, expected true`);
      problems.expect(
        document.authorization_response_iss_parameter_supported === true,
        `authorization_response_iss_parameter_supported is ${show(document.authorization_response_iss_parameter_supported)}, expected true`,
      );
      includes(problems, document, 'scopes_supported', ALL_SCOPES);
      problems.throwIfAny();
      return `issuer ${base}, ${Object.keys(AUTHORIZATION_SERVER_ENDPOINTS).length} endpoints, S256, ${ALL_SCOPES.length} scopes`;
    },
  },
  {
    name: 'discovery.openid-configuration',
    group: 'discovery',
    async run(context) {
      const base = context.options.baseUrl;
      const { body } = await context.http.getJson(`${base}${OAUTH_PATHS.openidConfiguration}`);
      const document = expectObject(body, OAUTH_PATHS.openidConfiguration);
      const problems = new Problems();
      problems.expect(document.issuer === base, `issuer is ${show(document.issuer)}, expected ${base}`);
      urlOn(problems, document, 'jwks_uri', new URL(base).origin);
      includes(problems, document, 'id_token_signing_alg_values_supported', [ID_TOKEN_ALG]);
      // OIDC Discovery 3: REQUIRED fields.
      includes(problems, document, 'response_types_supported', ['code']);
      if (stringArray(document.subject_types_supported) === null) problems.add(`subject_types_supported is ${show(document.subject_types_supported)}, expected an array`);
      for (const field of ['authorization_endpoint', 'token_endpoint']) {
        problems.expect(document[field] === `${base}${AUTHORIZATION_SERVER_ENDPOINTS[field as keyof typeof AUTHORIZATION_SERVER_ENDPOINTS]}`, `${field} is ${show(document[field])}, not the RFC 8414 document's`);
      }
      problems.throwIfAny();
      return `issuer ${base}, jwks_uri ${String(document.jwks_uri)}, ${ID_TOKEN_ALG}`;
    },
  },
  {
    name: 'discovery.jwks',
    group: 'discovery',
    async run(context) {
      let metadata: Record<string, unknown>;
      try {
        metadata = await context.authorizationServerMetadata();
      } catch (error) {
        return fail(`needs jwks_uri from ${OAUTH_PATHS.authorizationServerMetadata}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const jwksUri = metadata.jwks_uri;
      if (typeof jwksUri !== 'string') fail(`${OAUTH_PATHS.authorizationServerMetadata} has no jwks_uri`);
      if (new URL(jwksUri).origin !== new URL(context.options.baseUrl).origin) fail(`jwks_uri ${jwksUri} is not on the base origin`);
      const { body } = await context.http.getJson(jwksUri, ['application/jwk-set+json', 'application/json']);
      const keys = expectObject(body, 'the JWKS').keys;
      if (!Array.isArray(keys) || keys.length === 0) fail(`the JWKS at ${jwksUri} has no keys`);
      const problems = new Problems();
      const kids = new Set<string>();
      for (const [index, key] of keys.entries()) {
        if (!isObject(key)) {
          problems.add(`keys[${index}] is not an object`);
          continue;
        }
        const name = typeof key.kid === 'string' && key.kid !== '' ? key.kid : `keys[${index}]`;
        if (typeof key.kid !== 'string' || key.kid === '') problems.add(`keys[${index}] has no kid`);
        else if (kids.has(key.kid)) problems.add(`kid ${key.kid} appears twice`);
        else kids.add(key.kid);
        problems.expect(key.kty === 'EC' && key.crv === 'P-256', `${name} is ${show(key.kty)}/${show(key.crv)}, expected EC/P-256`);
        problems.expect(key.alg === undefined || key.alg === ID_TOKEN_ALG, `${name} has alg ${show(key.alg)}, expected ${ID_TOKEN_ALG}`);
        problems.expect(key.use === undefined || key.use === 'sig', `${name} has use ${show(key.use)}, expected sig`);
        problems.expect(!('d' in key), `${name} publishes its private part (d)`);
        try {
          await importJWK(key as JWK, ID_TOKEN_ALG);
        } catch (error) {
          problems.add(`${name} does not import as an ${ID_TOKEN_ALG} key: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      problems.throwIfAny();
      return `${keys.length} ${ID_TOKEN_ALG} key${keys.length === 1 ? '' : 's'} (kid ${[...kids].join(', ')})`;
    },
  },
];
