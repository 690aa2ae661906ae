/**
 * Hostile client credentials for the token and revocation endpoints (RFC 6749 2.3.1, RFC 7523): Authorization: Basic
 * headers built from real and hostile ids and secrets in every encoding (form-encoded, raw, broken percent-escapes,
 * no colon, not base64, not UTF-8), and client assertions that look like JWTs (alg none, HS256, ES256 with a garbage
 * signature, claims naming the real clients, wrong or missing claims). None of them is validly signed, so none may
 * record a jti or change anything else.
 */
import fc from 'fast-check';
import type { FuzzFixtures } from '../support/fixtures.js';
import { hostileString, invalidUtf8, type Pair } from '../support/hostile.js';

export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
const base64 = (value: string | Buffer) => Buffer.from(value).toString('base64');
const base64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function realIds(fx: FuzzFixtures): string[] {
  const { clients } = fx;
  return [clients.memberPublic.client.clientId, clients.memberConfidential.client.clientId, clients.operatorPublic.client.clientId, clients.operatorConfidential.client.clientId];
}

function realSecrets(fx: FuzzFixtures): string[] {
  return [fx.clients.memberConfidential.secret, fx.clients.operatorConfidential.secret].filter((secret): secret is string => secret !== null);
}

/** Authorization header values of the Basic scheme, well-formed or not, for real or hostile credentials. */
export function basicAuthorizations(fx: FuzzFixtures): fc.Arbitrary<string> {
  const id = fc.oneof({ arbitrary: fc.constantFrom(...realIds(fx)), weight: 3 }, { arbitrary: hostileString, weight: 2 });
  const secret = fc.oneof({ arbitrary: fc.constantFrom(...realSecrets(fx)), weight: 3 }, { arbitrary: hostileString, weight: 2 });
  const latin1 = (value: string) => value.replace(/[^\t\u0020-\u007e\u0080-\u00ff]/g, '?');
  return fc.oneof(
    fc.tuple(id, secret).map(([user, password]) => `Basic ${base64(`${formEncode(user)}:${formEncode(password)}`)}`),
    fc.tuple(id, secret).map(([user, password]) => `Basic ${base64(`${user}:${password}`)}`),
    fc.tuple(id, secret).map(([user, password]) => `basic   ${base64(`${encodeURIComponent(user)}:${encodeURIComponent(password)}`)}`),
    fc.tuple(id, secret).map(([user, password]) => `Basic ${base64(`${formEncode(user)}%:%${formEncode(password)}%G`)}`),
    id.map((user) => `Basic ${base64(formEncode(user))}`),
    id.map((user) => `Basic ${base64(`${formEncode(user)}:`)}`),
    secret.map((password) => `Basic ${base64(`:${formEncode(password)}`)}`),
    invalidUtf8.map((bytes) => `Basic ${base64(Buffer.concat([Buffer.from('id:'), Buffer.from(bytes)]))}`),
    fc.tuple(id, secret).map(([user, password]) => `Basic ${base64(`${formEncode(user)}:${formEncode(password)}`).replace(/=+$/, '')}`),
    fc.tuple(id, secret).map(([user, password]) => `Basic ${base64(`${formEncode(user)}:${formEncode(password)}`)}!`),
    hostileString.map((value) => `Basic ${latin1(value)}`),
    fc.constantFrom('Basic', 'Basic ', 'Basic =', 'Basic ====', 'Basic A', 'Basic AAAAA', `Basic ${'A'.repeat(12_000)}`, 'Basic Og==', 'Basic JQ==', 'Basic ==Og'),
  );
}

/** Things that look like client assertions, none validly signed. */
export function clientAssertions(fx: FuzzFixtures): fc.Arbitrary<string> {
  const now = Math.floor(Date.now() / 1000);
  const subject = fc.oneof(fc.constantFrom(...realIds(fx)), hostileString);
  const claims = fc.record(
    {
      iss: subject,
      sub: subject,
      aud: fc.oneof(fc.constantFrom<unknown>(fx.origin, `${fx.origin}/api/oauth/token`, `${fx.origin}/api/oauth/revoke`, fx.otherSite.origin, [fx.origin, 'x'], []), hostileString),
      exp: fc.oneof(fc.constantFrom<unknown>(now + 60, now - 60, now + 86_400, 1e20, -1, '60', null), fc.integer()),
      iat: fc.oneof(fc.constantFrom<unknown>(now, now + 3600, 'now'), fc.integer()),
      nbf: fc.constantFrom<unknown>(now, now + 3600),
      jti: fc.oneof(fc.constantFrom<unknown>('', 'jti', 1, null, {}), hostileString),
    },
    { requiredKeys: [] },
  );
  const header = fc.oneof(
    fc.constantFrom<unknown>({ alg: 'none' }, { alg: 'HS256' }, { alg: 'ES256' }, { alg: 'RS256', kid: 'k' }, { alg: 'EdDSA' }, { alg: 'Ed25519' }, { alg: 'ES256', crit: ['b64'], b64: false }, { alg: 'ES256', jku: 'https://evil.example/jwks' }, { alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' } }, {}, [], 'ES256'),
    hostileString.map((alg) => ({ alg })),
  );
  const signature = fc.oneof(fc.constantFrom('', 'AAAA', 'x'.repeat(86), '!!!'), fc.base64String({ maxLength: 200 }).map((value) => value.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')));
  return fc.oneof(
    { arbitrary: fc.tuple(header, claims, signature).map(([h, c, s]) => `${base64url(h)}.${base64url(c)}.${s}`), weight: 6 },
    { arbitrary: fc.tuple(header, claims).map(([h, c]) => `${base64url(h)}.${base64url(c)}`), weight: 1 },
    { arbitrary: hostileString, weight: 2 },
    { arbitrary: fc.constantFrom('a.b.c', '..', '.', 'eyJ.eyJ.', `${'a'.repeat(5000)}.${'b'.repeat(5000)}.c`), weight: 1 },
  );
}

/** The assertion fields: the right type or a hostile one, and an assertion (either may be missing). */
export function assertionPairs(fx: FuzzFixtures): fc.Arbitrary<Pair[]> {
  const type = fc.oneof({ arbitrary: fc.constant(JWT_BEARER), weight: 4 }, { arbitrary: fc.constantFrom('urn:ietf:params:oauth:client-assertion-type:saml2-bearer', `${JWT_BEARER} `, JWT_BEARER.toUpperCase()), weight: 1 }, { arbitrary: hostileString, weight: 1 });
  return fc.tuple(fc.option(type, { freq: 8 }), fc.option(clientAssertions(fx), { freq: 8 })).map(([assertionType, assertion]) => [
    ...(assertionType === null ? [] : [['client_assertion_type', assertionType] as Pair]),
    ...(assertion === null ? [] : [['client_assertion', assertion] as Pair]),
  ]);
}
