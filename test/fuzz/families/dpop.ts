/**
 * Hostile DPoP proofs (RFC 9449 4.3) for the token endpoint and the protected resources: JWTs signed with a real
 * ES256 key but with wrong or missing claims (htm, htu, iat, jti, ath, nonce), wrong typ or alg (none, HS256), a jwk
 * with its private part or none at all, garbage signatures, and plain hostile strings; sometimes two DPoP headers.
 * None is a valid proof for the request it rides on, so none may record a jti or change anything else.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import type { FuzzFixtures } from '../support/fixtures.js';
import { hostileString, sometimes } from '../support/hostile.js';

const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicJwk = keys.publicKey.export({ format: 'jwk' });
const privateJwk = keys.privateKey.export({ format: 'jwk' });
const base64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function signed(header: unknown, claims: unknown): string {
  const input = `${base64url(header)}.${base64url(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: keys.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** Proof-like values for a request to `path`; `method` is the request's own method. */
export function dpopProofs(fx: FuzzFixtures, method: string, path: string): fc.Arbitrary<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = fc.record(
    {
      jti: fc.oneof(fc.constantFrom<unknown>('', 1, null, {}, 'j'.repeat(300)), hostileString),
      htm: fc.oneof(fc.constantFrom<unknown>(method, method.toLowerCase(), 'PUT', '', null), hostileString),
      htu: fc.oneof(fc.constantFrom<unknown>(`${fx.origin}${path}`, `${fx.origin}${path}?q=1`, `${fx.origin.toUpperCase()}${path}`, `${fx.otherSite.origin}${path}`, `${fx.origin}/`, 'javascript:alert(1)', ''), hostileString),
      iat: fc.oneof(fc.constantFrom<unknown>(now, now - 3600, now + 3600, 'now', 1e20, -1, null), fc.integer()),
      ath: fc.oneof(fc.constantFrom<unknown>('', 'A'.repeat(43), 1), hostileString),
      nonce: fc.oneof(fc.constantFrom<unknown>('', 1, 'A'.repeat(43)), hostileString),
    },
    { requiredKeys: [] },
  );
  const header = fc.constantFrom<unknown>(
    { alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk },
    { alg: 'ES256', typ: 'JWT', jwk: publicJwk },
    { alg: 'ES256', jwk: publicJwk },
    { alg: 'ES256', typ: 'dpop+jwt', jwk: privateJwk },
    { alg: 'ES256', typ: 'dpop+jwt' },
    { alg: 'ES256', typ: 'dpop+jwt', jwk: { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' } },
    { alg: 'RS256', typ: 'dpop+jwt', jwk: publicJwk },
    { alg: 'none', typ: 'dpop+jwt', jwk: publicJwk },
    { alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: 'c2VjcmV0' } },
    { alg: 'ES256', typ: 'dpop+jwt', jwk: 'not an object' },
    [],
  );
  return fc.oneof(
    { arbitrary: fc.tuple(header, claims).map(([h, c]) => signed(h, c)), weight: 6 },
    { arbitrary: fc.tuple(header, claims).map(([h, c]) => `${base64url(h)}.${base64url(c)}.`), weight: 1 },
    { arbitrary: hostileString, weight: 2 },
    { arbitrary: fc.constantFrom('a.b.c', '..', '', `${'a'.repeat(9000)}.b.c`), weight: 1 },
  );
}

/** DPoP headers in one request of `percent`: none, one, or (rarely) two. */
export function dpopHeaders(fx: FuzzFixtures, method: string, path: string, percent: number): fc.Arbitrary<Array<[string, string]>> {
  // Only values node:http will send (printable, no line breaks): a hostile string may hold anything.
  const proof = dpopProofs(fx, method, path).map((value) => value.replace(/[^\t\u0020-\u007e]/g, '?'));
  const headers = fc.oneof({ arbitrary: proof.map((value): Array<[string, string]> => [['DPoP', value]]), weight: 5 }, { arbitrary: fc.tuple(proof, proof).map(([a, b]): Array<[string, string]> => [['DPoP', a], ['DPoP', b]]), weight: 1 });
  return sometimes(headers, percent, [] as Array<[string, string]>).map((list) => list ?? []);
}
