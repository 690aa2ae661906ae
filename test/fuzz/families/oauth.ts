/**
 * Generators for the OAuth endpoints: token, revocation, registration, userinfo and the authorization endpoint.
 * Values come from two pools: the right ones (real client ids and secrets, the redirect URI, the origin, spent codes
 * and refresh tokens) so requests get past the first checks, and hostile ones.
 */
import fc from 'fast-check';
import { DEMO_CLIENTS } from '../../../src/demo/demo-school.js';
import type { FuzzFixtures } from '../support/fixtures.js';
import type { FuzzRequest } from '../support/http-client.js';
import {
  authorizationValues,
  contentTypeFor,
  encodePairs,
  encodingStyle,
  formBody,
  hostileString,
  jsonBody,
  jsonValue,
  oddMethod,
  parameterList,
  safeEncode,
  sometimes,
  type Pair,
} from '../support/hostile.js';
import { REDIRECT_URI } from '../../support/oauth-fixtures.js';
import { abuseFor, applyAbuse, headerList } from './common.js';
import { dpopHeaders } from './dpop.js';
import { assertionPairs, basicAuthorizations } from './client-credentials.js';

const FORM = 'application/x-www-form-urlencoded';

function either<T>(right: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>, rightWeight = 3): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: right, weight: rightWeight }, { arbitrary: hostile, weight: 2 });
}

function clientIds(fx: FuzzFixtures): fc.Arbitrary<string> {
  const { clients } = fx;
  return either(
    fc.constantFrom(clients.memberPublic.client.clientId, clients.memberConfidential.client.clientId, clients.operatorPublic.client.clientId, clients.operatorConfidential.client.clientId, fx.service.clientId, 'vendor-claude', 'demo-operator-console'),
    fc.oneof(hostileString, fc.constantFrom('https://evil.example/client.json', 'https://127.0.0.1/client.json', 'https://localhost:1/x', 'http://evil.example/c', `${fx.origin}/client.json`)),
  );
}

function clientSecrets(fx: FuzzFixtures): fc.Arbitrary<string> {
  const secrets = [fx.clients.memberConfidential.secret, fx.clients.operatorConfidential.secret, fx.service.secret, DEMO_CLIENTS.operator.clientSecret].filter((secret): secret is string => secret !== null);
  return either(fc.constantFrom(...secrets), hostileString);
}

/** The rest of a POST to a form endpoint: body, Content-Type, method, stray query, header abuse. */
function formPost(fx: FuzzFixtures, family: FuzzRequest['family'], path: string, pairs: fc.Arbitrary<Pair[]>, writes: FuzzRequest['writes'], extraHeaders: fc.Arbitrary<Array<[string, string]>> = fc.constant([])): fc.Arbitrary<FuzzRequest> {
  const body = fc.oneof(
    { arbitrary: formBody(pairs).map((bytes) => ({ bytes, kind: 'form' })), weight: 10 },
    { arbitrary: jsonBody(fc.dictionary(fc.string({ maxLength: 20 }), jsonValue, { maxKeys: 6 })).map((bytes) => ({ bytes, kind: 'json' })), weight: 2 },
    { arbitrary: fc.constant({ bytes: undefined as Buffer | undefined, kind: 'none' }), weight: 1 },
  );
  const method = fc.oneof({ arbitrary: fc.constant('POST'), weight: 12 }, { arbitrary: fc.constant('GET'), weight: 1 }, { arbitrary: oddMethod, weight: 1 });
  const query = sometimes(fc.tuple(pairs, encodingStyle).map(([list, style]) => encodePairs(list, style)), 10, undefined);
  return fc.record({ body, contentType: contentTypeFor(FORM), method, query, extra: extraHeaders, abuse: abuseFor(fx) }).map(({ body: { bytes, kind }, contentType, method: verb, query: search, extra, abuse }) =>
    applyAbuse(
      fx,
      {
        family,
        route: `POST ${path}`,
        label: `${verb} ${kind} body, Content-Type ${contentType ?? '(none)'}${search === undefined ? '' : ', parameters in the query'}`,
        method: verb,
        target: search === undefined ? path : `${path}?${search}`,
        headers: headerList([['Content-Type', contentType], ...extra]),
        body: bytes,
        writes,
      },
      abuse,
    ),
  );
}

export function tokenRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const fields = {
    grant_type: either(fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'password', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer', 'AUTHORIZATION_CODE', 'refresh_token ', 'hasOwnProperty', '__proto__', 'constructor'), hostileString, 4),
    code: either(fc.oneof(fc.constant(fx.spent.usedCode), fc.stringMatching(/^sgc_[A-Za-z0-9_-]{43}$/)), hostileString),
    redirect_uri: either(fc.constant(REDIRECT_URI), hostileString),
    client_id: clientIds(fx),
    client_secret: clientSecrets(fx),
    code_verifier: either(fc.oneof(fc.constant(fx.spent.usedCodeVerifier), fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/)), hostileString),
    resource: either(fc.constantFrom(fx.origin, fx.otherSite.origin, `${fx.origin}/`, fx.origin.toUpperCase()), hostileString),
    refresh_token: either(fc.oneof(fc.constant(fx.spent.rotatedRefreshToken), fc.stringMatching(/^sgr_[A-Za-z0-9_-]{43}$/)), hostileString),
    scope: either(fc.constantFrom('openid', 'openid account:read account:write', 'school:write', 'account:read school:read', 'school:read posts:write', 'school:read root'), hostileString),
  };
  // RFC 9449 5: hostile DPoP proofs beside the client credentials.
  const headers = fc.tuple(authorizationHeaders(fx), dpopHeaders(fx, 'POST', '/api/oauth/token', 20)).map(([authorization, dpop]) => [...authorization, ...dpop]);
  return formPost(fx, 'token', '/api/oauth/token', withClientCredentials(fx, parameterList(fields)), 'on-success', headers);
}

/** An Authorization header in one request of four: Basic credentials (RFC 6749 2.3.1) mostly, other schemes too. */
function authorizationHeaders(fx: FuzzFixtures): fc.Arbitrary<Array<[string, string]>> {
  const value = fc.oneof({ arbitrary: basicAuthorizations(fx), weight: 3 }, { arbitrary: authorizationValues([fx.clients.memberConfidential.secret ?? 'x']), weight: 1 });
  return sometimes(value.map((header): Array<[string, string]> => [['Authorization', header]]), 25, [] as Array<[string, string]>).map((headers) => headers ?? []);
}

/** In one request of five, client assertion fields (RFC 7523 2.2) join the other parameters. */
function withClientCredentials(fx: FuzzFixtures, pairs: fc.Arbitrary<Pair[]>): fc.Arbitrary<Pair[]> {
  return fc.tuple(pairs, sometimes(assertionPairs(fx), 20, [] as Pair[])).map(([list, assertion]) => [...list, ...(assertion ?? [])]);
}

export function revocationRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const fields = {
    // Never a live token of the fixtures: the other families need them.
    token: either(fc.oneof(fc.constantFrom(fx.spent.rotatedRefreshToken, fx.spent.revokedAccessToken, fx.spent.usedCode), fc.stringMatching(/^sg[ar]_[A-Za-z0-9_-]{43}$/)), hostileString),
    token_type_hint: either(fc.constantFrom('access_token', 'refresh_token', 'id_token', 'code'), hostileString),
    client_id: clientIds(fx),
    client_secret: clientSecrets(fx),
  };
  return formPost(fx, 'revocation', '/api/oauth/revoke', withClientCredentials(fx, parameterList(fields)), 'never', authorizationHeaders(fx));
}

export function registrationRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const clientName = fc.oneof(
    { arbitrary: fc.constantFrom<unknown>(...fx.vendorNames, 'claude', ' CLAUDE ', 'ＣｌａｕｄＥ', 'Claude\u0000', 'Claud', 'Cursor Pro'), weight: 3 },
    { arbitrary: hostileString, weight: 3 },
    { arbitrary: jsonValue, weight: 2 },
  );
  const metadata = fc.record(
    {
      client_name: clientName,
      redirect_uris: either(fc.constant<unknown>([REDIRECT_URI]), jsonValue),
      grant_types: either(fc.constant<unknown>(['authorization_code']), jsonValue),
      response_types: jsonValue,
      token_endpoint_auth_method: either(fc.constantFrom<unknown>('none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'), jsonValue),
      scope: jsonValue,
      software_statement: either(fc.constant<unknown>('eyJhbGciOiJub25lIn0.eyJjbGllbnRfbmFtZSI6IkNsYXVkZSJ9.'), jsonValue),
      jwks_uri: jsonValue,
      client_uri: jsonValue,
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    { arbitrary: jsonBody(fc.oneof({ arbitrary: metadata, weight: 6 }, { arbitrary: jsonValue, weight: 1 }, { arbitrary: fc.array(metadata, { maxLength: 3 }), weight: 1 })).map((bytes) => ({ bytes, json: true })), weight: 8 },
    {
      arbitrary: formBody(parameterList({ client_name: either(fc.constantFrom(...fx.vendorNames), hostileString), redirect_uris: hostileString, scope: hostileString })).map((bytes) => ({ bytes, json: false })),
      weight: 3,
    },
  );
  const method = fc.oneof({ arbitrary: fc.constant('POST'), weight: 12 }, { arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE'), weight: 1 }, { arbitrary: oddMethod, weight: 1 });
  return fc.record({ body, ctJson: contentTypeFor('application/json'), ctForm: contentTypeFor(FORM), method, abuse: abuseFor(fx), auth: sometimes(authorizationValues([fx.tokens.operatorFull]), 15, null) }).map(({ body: { bytes, json }, ctJson, ctForm, method: verb, abuse, auth }) => {
    const contentType = json ? ctJson : ctForm;
    return applyAbuse(
      fx,
      {
        family: 'registration',
        route: 'POST /api/oauth/register',
        label: `${verb} ${json ? 'JSON' : 'form'} body, Content-Type ${contentType ?? '(none)'}`,
        method: verb,
        target: '/api/oauth/register',
        headers: headerList([
          ['Content-Type', contentType],
          ['Authorization', auth],
        ]),
        body: bytes,
        // A vendor-platform match answers the platform's existing client: nothing is ever written.
        writes: 'never',
      },
      abuse,
    );
  });
}

export function userinfoRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const tokens = [fx.tokens.memberFull, fx.tokens.memberRead, fx.tokens.memberIdentity, fx.tokens.operatorFull, fx.tokens.otherSiteMember, fx.spent.revokedAccessToken].filter((token) => token !== '');
  const authorization = fc.oneof({ arbitrary: authorizationValues(tokens), weight: 8 }, { arbitrary: fc.constant(null), weight: 1 });
  const second = sometimes(authorizationValues(tokens), 12, null);
  const accessTokenParam = sometimes(either(fc.constantFrom(...tokens), hostileString), 20, null);
  const method = fc.oneof({ arbitrary: fc.constantFrom('GET', 'POST'), weight: 10 }, { arbitrary: oddMethod, weight: 1 });
  // RFC 9449 7: the DPoP scheme with real tokens, and hostile proofs with either scheme.
  const dpopScheme = sometimes(fc.constantFrom(...tokens).map((token) => `DPoP ${token}`), 20, null);
  const dpop = dpopHeaders(fx, 'GET', '/api/oauth/userinfo', 25);
  return fc.record({ authorization, second, accessTokenParam, method, style: encodingStyle, inBody: fc.boolean(), contentType: contentTypeFor(FORM), abuse: abuseFor(fx), dpopScheme, dpop }).map(({ authorization: auth, second: other, accessTokenParam: param, method: verb, style, inBody, contentType, abuse, dpopScheme: scheme, dpop: proofs }) => {
    const encoded = param === null ? null : encodePairs([['access_token', param]], style);
    const body = verb !== 'GET' && inBody && encoded !== null ? Buffer.from(encoded) : undefined;
    const query = encoded !== null && body === undefined ? `?${encoded}` : '';
    return applyAbuse(
      fx,
      {
        family: 'userinfo',
        route: 'GET /api/oauth/userinfo',
        label: `${verb}${other === null ? '' : ', two Authorization headers'}${encoded === null ? '' : body ? ', access_token in the body' : ', access_token in the query'}${scheme === null ? '' : ', DPoP scheme'}${proofs.length === 0 ? '' : `, ${proofs.length} DPoP header(s)`}`,
        method: verb,
        target: `/api/oauth/userinfo${query}`,
        headers: headerList([
          ['Authorization', scheme ?? auth],
          ['Authorization', other],
          ['Content-Type', body ? contentType : null],
          ...proofs,
        ]),
        body,
        writes: 'never',
      },
      abuse,
    );
  });
}

/** Ways an authorization request is wrong; every generated request has at least one, so none may save anything. */
type AuthorizeDefect =
  | 'unknown-client'
  | 'missing-client'
  | 'duplicated-client'
  | 'wrong-redirect'
  | 'duplicated-redirect'
  | 'bad-response-type'
  | 'missing-response-type'
  | 'missing-challenge'
  | 'bad-challenge'
  | 'plain-method'
  | 'missing-method'
  | 'wrong-resource'
  | 'missing-resource'
  | 'bad-scope'
  | 'operator-scope'
  | 'long-nonce'
  | 'request-object'
  | 'request-uri'
  | 'bad-response-mode'
  | 'prompt-none'
  | 'duplicated-parameter';

const DEFECTS: readonly AuthorizeDefect[] = [
  'unknown-client',
  'missing-client',
  'duplicated-client',
  'wrong-redirect',
  'duplicated-redirect',
  'bad-response-type',
  'missing-response-type',
  'missing-challenge',
  'bad-challenge',
  'plain-method',
  'missing-method',
  'wrong-resource',
  'missing-resource',
  'bad-scope',
  'operator-scope',
  'long-nonce',
  'request-object',
  'request-uri',
  'bad-response-mode',
  'prompt-none',
  'duplicated-parameter',
];

export function authorizeRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const knownClientIds = new Set([...Object.values(fx.clients).map((client) => client.client.clientId), ...fx.knownClientIds]);
  const client = fc.constantFrom(fx.clients.memberPublic, fx.clients.memberConfidential, fx.clients.operatorPublic);
  const notA = (value: string, ...taken: string[]) => (taken.includes(value) ? `${value}-x` : value);
  const defectValue = fc.record({
    unknownClient: fc.oneof(hostileString, fc.constantFrom('https://evil.example/client.json', 'https://127.0.0.1/c.json')).map((value) => (knownClientIds.has(value) || value.trim() === '' ? `unknown-${value}` : value)),
    wrongRedirect: fc.oneof(hostileString, fc.constantFrom(`${REDIRECT_URI}/`, REDIRECT_URI.toUpperCase(), `${REDIRECT_URI}?x=1`, 'http://localhost:8765/callback', 'https://evil.example/cb')).map((value) => (value === REDIRECT_URI || value === '' ? `${value}x` : value)),
    responseType: fc.oneof(hostileString, fc.constantFrom('token', 'id_token', 'code id_token', 'CODE', 'code ')).map((value) => (value === 'code' || value === '' ? `${value}x` : value)),
    challenge: fc.oneof(hostileString, fc.stringMatching(/^[A-Za-z0-9]{1,42}$/), fc.stringMatching(/^[A-Za-z0-9]{129,200}$/)).map((value) => (/^[A-Za-z0-9\-._~]{43,128}$/.test(value) ? `${value}!` : `${value}!`)),
    method: fc.oneof(hostileString, fc.constantFrom('plain', 's256', 'S512', 'S256 ')).map((value) => notA(value, 'S256')),
    resource: fc.oneof(hostileString, fc.constantFrom(`${fx.origin}/`, fx.otherSite.origin, 'https://evil.example', fx.origin.replace('http:', 'https:'))).map((value) => (value === fx.origin || value === '' ? `${value}/x` : value)),
    scope: fc.oneof(hostileString, fc.constantFrom('unknown', 'openid admin', 'account:read account:delete', 'OPENID')).map((value) => `${value} zz:unknown`),
    nonce: fc.integer({ min: 256, max: 4000 }).map((length) => 'n'.repeat(length)),
    responseMode: fc.oneof(hostileString, fc.constantFrom('fragment', 'form_post', 'jwt')).map((value) => (value === 'query' || value === '' ? `${value}x` : value)),
    duplicated: fc.constantFrom('response_type', 'scope', 'resource', 'code_challenge', 'code_challenge_method', 'state', 'nonce'),
    duplicateValue: hostileString.map((value) => (value === '' ? 'x' : value)),
  });
  const defects = fc.uniqueArray(fc.constantFrom(...DEFECTS), { minLength: 1, maxLength: 3 });
  const junk = fc.array(fc.tuple(fc.oneof(fc.constantFrom('login_hint', 'max_age', 'ui_locales', 'claims', 'acr_values', 'display', 'id_token_hint', 'registration'), hostileString.map((name) => `x_${name.slice(0, 40)}`)), hostileString), { maxLength: 3 });
  const method = fc.oneof({ arbitrary: fc.constant('GET'), weight: 14 }, { arbitrary: fc.constantFrom('HEAD', 'POST'), weight: 1 }, { arbitrary: oddMethod, weight: 1 });
  return fc
    .record({ client, defects, values: defectValue, state: sometimes(hostileString, 70, null), junk, style: encodingStyle, method, abuse: abuseFor(fx), challenge: fc.stringMatching(/^[A-Za-z0-9_-]{43}$/) })
    .map(({ client: app, defects: chosen, values, state, junk: extra, style, method: verb, abuse, challenge }) => {
      const has = (defect: AuthorizeDefect) => chosen.includes(defect);
      const params: Pair[] = [];
      const push = (name: string, value: string) => params.push([name, value]);
      if (!has('missing-response-type')) push('response_type', has('bad-response-type') ? values.responseType : 'code');
      const clientId = has('unknown-client') ? values.unknownClient : app.client.clientId;
      // Duplicated wins over missing: two client_id parameters, whatever else was chosen.
      if (has('duplicated-client')) params.push(['client_id', clientId], ['client_id', app.client.clientId]);
      else if (!has('missing-client')) push('client_id', clientId);
      push('redirect_uri', has('wrong-redirect') ? values.wrongRedirect : REDIRECT_URI);
      if (has('duplicated-redirect')) push('redirect_uri', REDIRECT_URI);
      const memberScope = app.client.audience === 'member' ? 'openid account:read' : 'openid school:read';
      push('scope', has('bad-scope') ? values.scope : has('operator-scope') ? (app.client.audience === 'member' ? 'openid school:write' : 'openid account:read') : memberScope);
      if (!has('missing-resource')) push('resource', has('wrong-resource') ? values.resource : fx.origin);
      if (!has('missing-challenge')) push('code_challenge', has('bad-challenge') ? values.challenge : challenge);
      if (!has('missing-method')) push('code_challenge_method', has('plain-method') ? values.method : 'S256');
      if (state !== null) push('state', state);
      if (has('long-nonce')) push('nonce', values.nonce);
      if (has('request-object')) push('request', 'eyJhbGciOiJub25lIn0.e30.');
      if (has('request-uri')) push('request_uri', 'urn:ietf:params:oauth:request_uri:x');
      if (has('bad-response-mode')) push('response_mode', values.responseMode);
      if (has('prompt-none')) push('prompt', 'none');
      if (has('duplicated-parameter')) {
        // Twice at least, even when the parameter was not there yet (state and nonce are optional).
        if (!params.some(([name]) => name === values.duplicated)) push(values.duplicated, values.duplicateValue);
        push(values.duplicated, values.duplicateValue);
      }
      const all = [...params, ...extra];
      // "broken-percent" and "double" would mangle the parameter names too; keep the names readable and break the values.
      const query = all.map(([name, value]) => `${safeEncode(name)}=${encodePairs([['v', value]], style).slice(2)}`).join('&');
      return applyAbuse(
        fx,
        {
          family: 'authorize',
          route: 'GET /oauth/authorize',
          label: `${verb}, ${app.client.audience} ${app.client.confidential ? 'confidential' : 'public'} client, defects: ${chosen.join(', ')}, ${style} encoding`,
          method: verb,
          target: `/oauth/authorize?${query}`,
          headers: [['Accept', 'text/html']],
          writes: 'never',
        },
        abuse,
      );
    });
}
