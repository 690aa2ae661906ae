/**
 * Hostile requests to the end_session endpoint (OpenID Connect RP-Initiated Logout 1.0) and its confirmation form:
 * id_token_hints that are garbage, unsigned, signed with a key this site never had or claiming another issuer or
 * audience; client_ids that do not match; post_logout_redirect_uris none of the fuzz clients registered (other case,
 * trailing slash, extra query, percent-encoding, other hosts, javascript:); duplicated parameters; every encoding
 * style; GET, form POST and odd methods. No request carries a session cookie, so none may change a row; and since no
 * fuzz client registered a post-logout address, no answer may redirect anywhere but back to the endpoint itself (a
 * cookieless POST retried as a GET).
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import type { FuzzFixtures } from '../support/fixtures.js';
import type { FuzzRequest } from '../support/http-client.js';
import { contentTypeFor, encodePairs, encodingStyle, formBody, hostileString, oddMethod, parameterList, sometimes, type Pair } from '../support/hostile.js';
import { REDIRECT_URI } from '../../support/oauth-fixtures.js';
import { abuseFor, applyAbuse, headerList } from './common.js';

const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const base64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** An ES256 JWT signed with a key this site never published. */
function foreignJwt(header: unknown, claims: unknown): string {
  const input = `${base64url(header)}.${base64url(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: keys.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

function hints(fx: FuzzFixtures, clientIds: readonly string[]): fc.Arbitrary<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = fc.record(
    {
      iss: fc.constantFrom<unknown>(fx.origin, fx.otherSite.origin, `${fx.origin}/`, '', null),
      aud: fc.oneof(fc.constantFrom<unknown>(...clientIds), fc.constantFrom<unknown>([], [clientIds[0], 'x'], 1, null), hostileString),
      sub: fc.oneof(fc.constantFrom<unknown>(String(fx.member.id), '', 1, null), hostileString),
      sid: fc.oneof(fc.constantFrom<unknown>('', 1, null), hostileString),
      exp: fc.constantFrom<unknown>(now + 600, now - 3600, 'never', null),
    },
    { requiredKeys: [] },
  );
  const header = fc.constantFrom<unknown>({ alg: 'ES256', typ: 'JWT', kid: 'k' }, { alg: 'ES256', typ: 'logout+jwt' }, { alg: 'none' }, { alg: 'HS256', typ: 'JWT' }, 'not json', {});
  return fc.oneof(
    { arbitrary: fc.tuple(header, claims).map(([h, c]) => foreignJwt(h, c)), weight: 4 },
    { arbitrary: fc.tuple(header, claims).map(([h, c]) => `${base64url(h)}.${base64url(c)}.`), weight: 2 },
    { arbitrary: fc.constantFrom('a.b.c', 'a.b', '...', 'eyJ.eyJ.eyJ', '%', 'e'.repeat(5000)), weight: 1 },
    { arbitrary: hostileString, weight: 2 },
  );
}

function postLogoutUris(fx: FuzzFixtures): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(REDIRECT_URI, `${REDIRECT_URI}/`, REDIRECT_URI.toUpperCase(), `${REDIRECT_URI}?next=https://evil.example`, `${REDIRECT_URI}#x`, REDIRECT_URI.replace('callback', 'call%62ack'), 'https://evil.example/', '//evil.example/', 'javascript:alert(1)', `${fx.origin}/oauth/logout`, fx.otherSite.origin),
    hostileString,
  );
}

/** GET or POST /oauth/logout, and POST /oauth/logout/confirm without the session it needs. */
export function logoutRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const clientIds = Object.values(fx.clients).map((client) => client.client.clientId);
  const pairs: fc.Arbitrary<Pair[]> = parameterList(
    {
      id_token_hint: hints(fx, clientIds),
      client_id: fc.oneof(fc.constantFrom(...clientIds), hostileString),
      post_logout_redirect_uri: postLogoutUris(fx),
      state: hostileString,
      logout_hint: hostileString,
      ui_locales: fc.oneof(fc.constantFrom('en', 'de fr', ''), hostileString),
      csrf_token: fc.oneof(fc.constantFrom('', 'A'.repeat(43)), hostileString),
    },
    { duplicateRate: 15 },
  );
  const path = fc.constantFrom('/oauth/logout', '/oauth/logout', '/oauth/logout/confirm');
  const method = fc.oneof({ arbitrary: fc.constantFrom('GET', 'POST'), weight: 12 }, { arbitrary: oddMethod, weight: 1 });
  return fc
    .record({ path, method, pairs, style: encodingStyle, body: formBody(pairs), contentType: contentTypeFor('application/x-www-form-urlencoded'), abuse: abuseFor(fx), inQuery: sometimes(fc.constant(true), 20, false) })
    .map(({ path: where, method: verb, pairs: list, style, body, contentType, abuse, inQuery }) => {
      const asQuery = verb !== 'POST' || inQuery;
      const target = asQuery ? `${where}?${encodePairs(list, style)}` : where;
      return applyAbuse(
        fx,
        {
          family: 'logout',
          route: `${verb === 'GET' || verb === 'POST' ? verb : 'other'} ${where}`,
          label: `${verb} ${where}, ${asQuery ? `query (${style})` : `form body, Content-Type ${contentType ?? '(none)'}`}`,
          method: verb,
          target,
          headers: headerList([['Accept', 'text/html'], ['Content-Type', verb === 'POST' && !asQuery ? contentType : null]]),
          body: verb === 'POST' && !asQuery ? body : undefined,
          writes: 'never',
        },
        abuse,
      );
    });
}
