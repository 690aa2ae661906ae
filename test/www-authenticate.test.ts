import { expect } from 'chai';
import { AdminApi, issueToken } from './support/admin.js';
import { describeEachDatabase } from './support/databases.js';
import { memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';
import { bearerChallenge, challengeParamValue, InsufficientScopeError, InvalidTokenError } from '../src/oauth/errors.js';
import { updateSite } from '../src/sites/sites.js';

/** RFC 6750 3: `Bearer` then comma-separated auth-params whose quoted values hold only %x20-21 / %x23-5B / %x5D-7E. */
const VALID_CHALLENGE = /^Bearer [a-z_]+="[\x20\x21\x23-\x5b\x5d-\x7e]*"(?:, [a-z_]+="[\x20\x21\x23-\x5b\x5d-\x7e]*")*$/;
const VALUE_CHARSET = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Operator-controlled text as hostile to a header as it gets: non-Latin-1, accents, quotes, backslashes, CR/LF, NUL, emoji. */
const HOSTILE_NAME = 'Écolé 日本 "Quoted" back\\slash\r\nX-Injected: yes\u0000 🎓';
const HOSTILE_DESCRIPTION = 'Line one\nLine "two" \\ trois\r\n– ünïcödé';

function paramsOf(header: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const match of header.matchAll(/([a-z_]+)="([^"]*)"/g)) params[match[1] ?? ''] = match[2] ?? '';
  return params;
}

function expectValidChallenge(header: string | null, error: string | null, label: string): Record<string, string> {
  expect(header, `${label}: WWW-Authenticate`).to.be.a('string');
  expect(header, label).to.match(VALID_CHALLENGE);
  const params = paramsOf(header ?? '');
  if (error === null) expect(params, label).to.not.have.property('error');
  else expect(params.error, label).to.equal(error);
  return params;
}

describe('WWW-Authenticate: challengeParamValue (RFC 6750 3)', () => {
  it('keeps text that is already in the charset as it is', () => {
    const text = 'the access token has expired; use the refresh token (see https://x.example/a?b=c#d) [ok] {ok} ~!';
    expect(challengeParamValue(text)).to.equal(text);
  });

  it('drops accents, turns whitespace into spaces and other characters outside the charset into ?', () => {
    expect(challengeParamValue('Écolé')).to.equal('Ecole');
    expect(challengeParamValue('a\r\nb\tc')).to.equal('a  b c');
    expect(challengeParamValue('日本')).to.equal('??');
    expect(challengeParamValue('cap 🎓')).to.equal('cap ?');
    expect(challengeParamValue('nul\u0000del\u007f')).to.equal('nul?del?');
    expect(challengeParamValue('ß€')).to.equal('??');
  });

  it('never leaves a double quote or a backslash, which would end or escape the quoted-string', () => {
    expect(challengeParamValue('say "hi" \\ bye')).to.equal("say 'hi' / bye");
  });

  it('never throws and always answers within the charset, even for lone surrogates and every control character', () => {
    const all = Array.from({ length: 0x300 }, (_, code) => String.fromCharCode(code)).join('') + '\ud800 \udfff \u2028\u2029\ufeff';
    const value = challengeParamValue(all);
    expect(value).to.match(VALUE_CHARSET);
    expect(challengeParamValue(HOSTILE_NAME)).to.match(VALUE_CHARSET);
    expect(challengeParamValue(HOSTILE_NAME)).to.equal("Ecole ?? 'Quoted' back/slash  X-Injected: yes? ?");
  });

  it('bearerChallenge sanitizes every parameter, so the errors carry a header Node accepts', () => {
    const header = bearerChallenge('http://localhost:1', 'insufficient_scope', `not staff of ${HOSTILE_NAME}`, { scope: 'a "b"\r\n' });
    expect(header).to.match(VALID_CHALLENGE);
    expect(paramsOf(header)).to.include({ realm: 'http://localhost:1', error: 'insufficient_scope', scope: "a 'b'  ", resource_metadata: 'http://localhost:1/.well-known/oauth-protected-resource' });
    for (const error of [new InvalidTokenError('http://localhost:1', HOSTILE_DESCRIPTION), new InsufficientScopeError('http://localhost:1', ['school:read'], HOSTILE_NAME)]) {
      expect(error.headers['WWW-Authenticate']).to.match(VALID_CHALLENGE);
      // The JSON body keeps the description as written.
      expect([HOSTILE_DESCRIPTION, HOSTILE_NAME]).to.include(error.message);
    }
  });
});

describeEachDatabase('WWW-Authenticate with a site name and description outside visible ASCII', (scratch) => {
  let server: TestServer;
  let origin: string;

  before(async () => {
    server = await startTestServer(scratch());
    origin = server.siteA.origin;
    await updateSite(scratch().db, server.siteA.id, { name: HOSTILE_NAME, description: HOSTILE_DESCRIPTION });
  });
  after(() => server.stop());

  it('userinfo: 401 invalid_token with a valid challenge', async () => {
    for (const headers of [{}, { authorization: 'Bearer sga_unknown' }, { authorization: 'Bearer "Écolé" \\ ü' }] as Array<Record<string, string>>) {
      const response = await fetch(`${origin}/api/oauth/userinfo`, { headers });
      expect(response.status, JSON.stringify(headers)).to.equal(401);
      const params = expectValidChallenge(response.headers.get('www-authenticate'), 'invalid_token', 'userinfo');
      expect(params.resource_metadata).to.equal(`${origin}/.well-known/oauth-protected-resource`);
    }
  });

  it('member GraphQL: 401 without a token and 403 insufficient_scope without an account scope', async () => {
    const query = JSON.stringify({ query: '{ __typename }' });
    const post = (authorization?: string) =>
      fetch(`${origin}/member/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body: query });
    const anonymous = await post();
    expect(anonymous.status).to.equal(401);
    expectValidChallenge(anonymous.headers.get('www-authenticate'), 'invalid_token', 'graphql 401');

    const student = await makeUser(scratch().db, server.siteA, ['student'], 'Stu Dent');
    const token = await memberToken(scratch().db, server.siteA, student, 'openid profile');
    const narrow = await post(`Bearer ${token}`);
    expect(narrow.status).to.equal(403);
    const params = expectValidChallenge(narrow.headers.get('www-authenticate'), 'insufficient_scope', 'graphql 403');
    expect(params.scope).to.equal('account:read account:write');
  });

  it('/mcp: 401 invalid_token with a valid challenge', async () => {
    const response = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer sga_unknown' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(response.status).to.equal(401);
    expectValidChallenge(response.headers.get('www-authenticate'), 'invalid_token', 'mcp');
  });

  it('admin API: 401 without or with an unknown token, and 403 naming the site for a user who does not operate it', async () => {
    const api = await AdminApi.connect(origin, null);
    const missing = await api.call('getSchool');
    expect(missing.status).to.equal(401);
    expectValidChallenge(missing.headers.get('www-authenticate'), null, 'admin 401 without a token');
    const unknown = await api.call('getSchool', { token: 'sga_unknown' });
    expect(unknown.status).to.equal(401);
    expectValidChallenge(unknown.headers.get('www-authenticate'), 'invalid_token', 'admin 401 unknown token');

    // The description of this refusal names the site: before sanitizing, Node refused the header and this was a 500.
    // The token endpoint refuses operator tokens to non-operators, so the operator loses the role after issuance.
    const { token, user } = await issueToken(scratch().db, server.siteA, { roles: ['operator'] });
    await scratch().db('site_roles').where({ site_id: server.siteA.id, user_id: user.id }).delete();
    const refused = await api.call('getSchool', { token });
    expect(refused.status).to.equal(403);
    expect(refused.problem.code).to.equal('insufficient_scope');
    const params = expectValidChallenge(refused.headers.get('www-authenticate'), 'insufficient_scope', 'admin 403');
    expect(params.error_description).to.contain(challengeParamValue(HOSTILE_NAME));
    expect(params.scope).to.equal('school:read');
  });
});
