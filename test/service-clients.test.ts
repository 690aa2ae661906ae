import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { AdminApi, issueToken, setBeta, type Schemas } from './support/admin.js';
import { describeEachDatabase } from './support/databases.js';
import { discover, makeClient, postForm } from './support/oauth-fixtures.js';
import { runCli } from './support/processes.js';
import { startTestServer, type TestServer } from './support/server.js';

type ApplicationWithSecret = Schemas['OAuthApplicationWithSecret'];
type Application = Schemas['OAuthApplication'];

const SERVICE = { name: 'SIS sync', audience: 'operator', confidential: true, kind: 'service', scopes: ['school:read', 'posts:write', 'posts:read'] } as const;

/**
 * Service clients (RFC 6749 4.4 client_credentials): created by an operator through the admin API and the CLI, they
 * get access tokens for themselves with oauth4webapi, call the admin API as themselves within their scopes, and their
 * writes name them. Member and ordinary clients may not use the grant; deleting the client ends its tokens at once.
 */
describeEachDatabase('service clients and client_credentials', (scratch) => {
  let server: TestServer;
  let api: AdminApi;
  let origin: string;
  let as: oauth.AuthorizationServer;

  before(async () => {
    server = await startTestServer(scratch());
    origin = server.siteA.origin;
    const { token } = await issueToken(scratch().db, server.siteA);
    api = await AdminApi.connect(origin, token);
    await setBeta(api, true);
    as = await discover(origin);
  });
  after(() => server.stop());

  async function createService(body: Record<string, unknown> = SERVICE): Promise<{ application: ApplicationWithSecret; secret: string }> {
    const answer = await api.call<ApplicationWithSecret>('createOAuthApplication', { body });
    expect(answer.status, answer.text).to.equal(201);
    if (answer.body.clientSecret === undefined) throw new Error('a service client gets a secret');
    return { application: answer.body, secret: answer.body.clientSecret };
  }

  async function grant(clientId: string, auth: oauth.ClientAuth, parameters: Record<string, string> = {}): Promise<Response> {
    return oauth.clientCredentialsGrantRequest(as, { client_id: clientId }, auth, new URLSearchParams(parameters), { [oauth.allowInsecureRequests]: true });
  }

  async function tokenFor(clientId: string, auth: oauth.ClientAuth, parameters: Record<string, string> = {}): Promise<oauth.TokenEndpointResponse> {
    return oauth.processClientCredentialsResponse(as, { client_id: clientId }, await grant(clientId, auth, parameters));
  }

  const tokenUrl = () => `${origin}/api/oauth/token`;

  it('is advertised: grant_types_supported lists client_credentials', () => {
    expect(as.grant_types_supported).to.include('client_credentials');
  });

  it('is created through the admin API: confidential operator client, no redirect URIs, a secret shown once, created by the operator', async () => {
    const { application } = await createService();
    expect(application).to.include({ kind: 'service', audience: 'operator', confidential: true, tokenEndpointAuthMethod: 'client_secret_post' });
    expect(application.redirectUris).to.deep.equal([]);
    expect(application.createdBy).to.have.property('kind', 'user');
    const read = await api.call<Application>('getOAuthApplication', { path: { clientId: application.clientId } });
    expect(read.body).to.not.have.property('clientSecret');
  });

  it('refuses identity and member scopes, redirect URIs, a public service client and logout addresses, with pointers; nothing is stored', async () => {
    const before = await scratch().db('oauth_clients').count({ n: '*' }).first();
    const answer = await api.call('createOAuthApplication', {
      body: { ...SERVICE, confidential: false, scopes: ['openid', 'account:read', 'school:read'], redirectUris: ['https://app.example/cb'], backchannelLogoutUri: 'https://app.example/logout' },
    });
    expect(answer.status).to.equal(400);
    const pointers = (answer.problem.errors ?? []).map((error) => error.pointer);
    expect(pointers).to.include.members(['/scopes/0', '/scopes/1', '/redirectUris', '/confidential', '/backchannelLogoutUri']);
    const memberService = await api.call('createOAuthApplication', { body: { ...SERVICE, audience: 'member' } });
    expect(memberService.status).to.equal(400);
    expect((memberService.problem.errors ?? []).map((error) => error.pointer)).to.include('/audience');
    const after = await scratch().db('oauth_clients').count({ n: '*' }).first();
    expect(after).to.deep.equal(before);
  });

  it('gets a token with client_secret_post and client_secret_basic through oauth4webapi: Bearer, expires_in, its scopes, no refresh token or id_token', async () => {
    const { application, secret } = await createService();
    const body = await tokenFor(application.clientId, oauth.ClientSecretPost(secret));
    expect(body.token_type).to.equal('bearer');
    expect(body.expires_in).to.be.a('number').greaterThan(0);
    expect(body.scope?.split(' ')).to.have.members([...SERVICE.scopes]);
    expect(body).to.not.have.property('refresh_token');
    expect(body).to.not.have.property('id_token');
    // Basic is refused for a client registered with client_secret_post (one method per client); register it and retry.
    const current = await api.call<Application>('getOAuthApplication', { path: { clientId: application.clientId } });
    const patched = await api.call<Application>('updateOAuthApplication', {
      path: { clientId: application.clientId },
      headers: { 'if-match': current.headers.get('etag') ?? '' },
      body: { tokenEndpointAuthMethod: 'client_secret_basic' },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.tokenEndpointAuthMethod).to.equal('client_secret_basic');
    const basic = await tokenFor(application.clientId, oauth.ClientSecretBasic(secret), { scope: 'school:read', resource: origin });
    expect(basic.scope).to.equal('school:read');
    const row = (await scratch().db('token_pairs').orderBy('id', 'desc').first()) as { user_id: number | null; refresh_token_hash: string | null; resource: string };
    expect(row).to.include({ user_id: null, refresh_token_hash: null, resource: origin });
  });

  it('calls the admin API as itself within its scopes: 403 insufficient_scope beyond them, and its writes name it', async () => {
    const { application, secret } = await createService();
    const { access_token: token } = await tokenFor(application.clientId, oauth.ClientSecretPost(secret));
    const asService = api.withToken(token);
    const school = await asService.call('getSchool');
    expect(school.status, school.text).to.equal(200);
    const forbidden = await asService.call('listCourses');
    expect(forbidden.status).to.equal(403);
    expect(forbidden.problem.code).to.equal('insufficient_scope');
    expect(forbidden.headers.get('www-authenticate')).to.match(/insufficient_scope/);

    const post = await asService.call<Schemas['Post']>('createPost', { body: { slug: `service-post-${application.clientId.slice(-6).toLowerCase().replace(/[^a-z0-9]/g, 'x')}`, title: 'From the SIS', body: 'Synced.' } });
    expect(post.status, post.text).to.equal(201);
    expect(post.body.author).to.equal(null);
    expect(post.body.authoredBy).to.deep.equal({ kind: 'client', clientId: application.clientId });
    const byPerson = await api.withToken((await issueToken(scratch().db, server.siteA, { scopes: ['posts:write'] })).token).call<Schemas['Post']>('createPost', { body: { slug: `person-post-${Date.now()}`, title: 'By hand', body: 'Typed.' } });
    expect(byPerson.status, byPerson.text).to.equal(201);
    expect(byPerson.body.authoredBy).to.have.property('kind', 'user');
  });

  it('records the service client that creates an OAuth application', async () => {
    const { application, secret } = await createService({ ...SERVICE, scopes: ['school:write', 'school:read'] });
    const { access_token: token } = await tokenFor(application.clientId, oauth.ClientSecretPost(secret));
    const created = await api.withToken(token).call<ApplicationWithSecret>('createOAuthApplication', { body: { ...SERVICE, name: 'Made by a machine' } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.createdBy).to.deep.equal({ kind: 'client', clientId: application.clientId });
  });

  it('is not a member: 401 at userinfo and the member GraphQL API; refused at /oauth/authorize', async () => {
    const { application, secret } = await createService();
    const { access_token: token } = await tokenFor(application.clientId, oauth.ClientSecretPost(secret));
    const userinfo = await fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect(userinfo.status).to.equal(401);
    for (const path of ['/account/graphql', '/member/graphql']) {
      const graphql = await fetch(`${origin}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
      expect([401, 404], path).to.include(graphql.status);
    }
    const authorize = await fetch(`${origin}/oauth/authorize?${new URLSearchParams({ client_id: application.clientId, response_type: 'code', redirect_uri: 'https://app.example/cb', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', resource: origin })}`, { redirect: 'manual' });
    expect(authorize.status).to.equal(400);
    expect(await authorize.text()).to.contain('service client');
    // Nor does it present codes or refresh tokens at the token endpoint.
    const refresh = await postForm(tokenUrl(), { grant_type: 'refresh_token', refresh_token: 'sgr_x', client_id: application.clientId, client_secret: secret });
    expect(refresh.body.error).to.equal('unauthorized_client');
  });

  it('refuses scopes it does not hold and resources other than the site, changing nothing', async () => {
    const { application, secret } = await createService();
    const count = async () => (await scratch().db('token_pairs').count({ n: '*' }).first()) as { n: number | string };
    const before = await count();
    const scope = await postForm(tokenUrl(), { grant_type: 'client_credentials', client_id: application.clientId, client_secret: secret, scope: 'school:read courses:write' });
    expect(scope.status).to.equal(400);
    expect(scope.body.error).to.equal('invalid_scope');
    const unknown = await postForm(tokenUrl(), { grant_type: 'client_credentials', client_id: application.clientId, client_secret: secret, scope: 'root' });
    expect(unknown.body.error).to.equal('invalid_scope');
    const resource = await postForm(tokenUrl(), { grant_type: 'client_credentials', client_id: application.clientId, client_secret: secret, resource: 'https://elsewhere.example' });
    expect(resource.status).to.equal(400);
    expect(resource.body.error).to.equal('invalid_target');
    const wrongSecret = await postForm(tokenUrl(), { grant_type: 'client_credentials', client_id: application.clientId, client_secret: 'sgs_wrong' });
    expect(wrongSecret.status).to.equal(401);
    expect(wrongSecret.body.error).to.equal('invalid_client');
    expect(Number((await count()).n)).to.equal(Number(before.n));
  });

  it('is refused to member clients and to ordinary operator clients: unauthorized_client', async () => {
    const member = await makeClient(scratch().db, server.siteA, { audience: 'member', confidential: true, scopes: ['openid', 'account:read'] });
    const operator = await makeClient(scratch().db, server.siteA, { audience: 'operator', confidential: true, scopes: ['school:read'] });
    const publicMember = await makeClient(scratch().db, server.siteA, { audience: 'member', confidential: false, scopes: ['account:read'] });
    for (const test of [member, operator]) {
      const answer = await postForm(tokenUrl(), { grant_type: 'client_credentials', client_id: test.client.clientId, client_secret: test.secret ?? '' });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
      expect(answer.body.error).to.equal('unauthorized_client');
    }
    const answer = await postForm(tokenUrl(), { grant_type: 'client_credentials', client_id: publicMember.client.clientId });
    expect(answer.body.error).to.equal('unauthorized_client');
    expect(answer.body.error_description).to.contain('member');
  });

  it('revoking its tokens, rotating and deleting: tokens end at once; deletion keeps what it wrote, unattributed', async () => {
    const { application, secret } = await createService();
    const first = await tokenFor(application.clientId, oauth.ClientSecretPost(secret));
    const asService = api.withToken(first.access_token);
    expect((await asService.call('getSchool')).status).to.equal(200);
    const revoked = await api.call<Schemas['OAuthApplicationTokensRevoked']>('revokeOAuthApplicationTokens', { path: { clientId: application.clientId } });
    expect(revoked.status, revoked.text).to.equal(200);
    expect(revoked.body.revokedTokenPairs).to.equal(1);
    expect((await asService.call('getSchool')).status).to.equal(401);

    const second = await tokenFor(application.clientId, oauth.ClientSecretPost(secret));
    const post = await api.withToken(second.access_token).call<Schemas['Post']>('createPost', { body: { slug: `doomed-${Date.now()}`, title: 'Kept', body: 'after deletion' } });
    expect(post.status, post.text).to.equal(201);
    expect((await api.call('deleteOAuthApplication', { path: { clientId: application.clientId } })).status).to.equal(204);
    const after = await api.withToken(second.access_token).call('getSchool');
    expect(after.status).to.equal(401);
    expect(after.problem.code).to.equal('invalid_token');
    const kept = await api.withToken((await issueToken(scratch().db, server.siteA, { scopes: ['posts:read'] })).token).call<Schemas['Post']>('getPost', { path: { postId: String(post.body.id) } });
    expect(kept.status).to.equal(200);
    expect(kept.body.authoredBy).to.equal(null);
    const again = await postForm(tokenUrl(), { grant_type: 'client_credentials', client_id: application.clientId, client_secret: secret });
    expect(again.status).to.equal(401);
  });

  it('switches a confidential client to private_key_jwt and back through the admin API, keeping the row consistent', async () => {
    const { application } = await createService();
    const keyPair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const publicJwk = { ...(await crypto.subtle.exportKey('jwk', keyPair.publicKey)), kid: 'k1' } as Record<string, unknown>;
    delete publicJwk.key_ops;
    delete publicJwk.ext;
    const etag = async () => (await api.call('getOAuthApplication', { path: { clientId: application.clientId } })).headers.get('etag') ?? '';
    const toJwt = await api.call<Application>('updateOAuthApplication', {
      path: { clientId: application.clientId },
      headers: { 'if-match': await etag() },
      body: { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] } },
    });
    expect(toJwt.status, toJwt.text).to.equal(200);
    expect(toJwt.body).to.include({ tokenEndpointAuthMethod: 'private_key_jwt', confidential: true });
    expect(toJwt.body.jwks?.keys).to.have.length(1);

    const privateKey = { key: keyPair.privateKey, kid: 'k1' };
    const body = await tokenFor(application.clientId, oauth.PrivateKeyJwt(privateKey));
    expect(body.token_type).to.equal('bearer');

    const withPrivate = await api.call('updateOAuthApplication', {
      path: { clientId: application.clientId },
      headers: { 'if-match': await etag() },
      body: { jwks: { keys: [{ ...publicJwk, d: 'secret' }] } },
    });
    expect(withPrivate.status).to.equal(400);
    expect((withPrivate.problem.errors ?? []).map((error) => error.pointer)).to.include('/jwks/keys/0');
    const publicNone = await api.call('updateOAuthApplication', { path: { clientId: application.clientId }, headers: { 'if-match': await etag() }, body: { tokenEndpointAuthMethod: 'none' } });
    expect(publicNone.status).to.equal(400);
    expect((publicNone.problem.errors ?? []).map((error) => error.pointer)).to.include('/tokenEndpointAuthMethod');

    const back = await api.call<Application>('updateOAuthApplication', { path: { clientId: application.clientId }, headers: { 'if-match': await etag() }, body: { tokenEndpointAuthMethod: 'client_secret_post' } });
    expect(back.status, back.text).to.equal(200);
    expect(back.body).to.include({ tokenEndpointAuthMethod: 'client_secret_post', jwks: null, jwksUri: null });
  });

  it('a private_key_jwt client created without a secret must get one before switching to a secret method', async () => {
    const keyPair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const publicJwk = { ...(await crypto.subtle.exportKey('jwk', keyPair.publicKey)) } as Record<string, unknown>;
    delete publicJwk.key_ops;
    delete publicJwk.ext;
    const answer = await api.call<ApplicationWithSecret>('createOAuthApplication', { body: { ...SERVICE, tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] } } });
    expect(answer.status, answer.text).to.equal(201);
    expect(answer.body).to.not.have.property('clientSecret');
    const etag = answer.headers.get('etag') ?? '';
    const refused = await api.call('updateOAuthApplication', { path: { clientId: answer.body.clientId }, headers: { 'if-match': etag }, body: { tokenEndpointAuthMethod: 'client_secret_basic' } });
    expect(refused.status).to.equal(409);
    expect(refused.problem.code).to.equal('application_has_no_secret');
  });

  it('validates logout addresses of an ordinary application: fragments, plain http off loopback', async () => {
    const answer = await api.call('createOAuthApplication', {
      body: {
        name: 'Logout app',
        audience: 'member',
        confidential: false,
        redirectUris: ['https://app.example/cb'],
        scopes: ['openid'],
        postLogoutRedirectUris: ['https://app.example/bye#x', 'http://app.example/bye'],
        backchannelLogoutUri: 'http://app.example/logout',
      },
    });
    expect(answer.status).to.equal(400);
    expect((answer.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/postLogoutRedirectUris/0', '/postLogoutRedirectUris/1', '/backchannelLogoutUri']);
    const ok = await api.call<ApplicationWithSecret>('createOAuthApplication', {
      body: { name: 'Logout app', audience: 'member', confidential: false, redirectUris: ['https://app.example/cb'], scopes: ['openid'], postLogoutRedirectUris: ['https://app.example/bye'], backchannelLogoutUri: 'http://127.0.0.1:9/logout', dpopBoundAccessTokens: true },
    });
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body).to.include({ backchannelLogoutUri: 'http://127.0.0.1:9/logout', dpopBoundAccessTokens: true, tokenEndpointAuthMethod: 'none' });
    expect(ok.body.postLogoutRedirectUris).to.deep.equal(['https://app.example/bye']);
  });

  it('is created, updated and its tokens revoked with the CLI', async () => {
    const env = { DATABASE_URL: scratch().url };
    const created = await runCli(['--json', 'client', 'create', '--site', origin, '--name', 'Nightly report', '--service', '--scope', 'analytics:read school:read', '--auth-method', 'client_secret_basic'], env);
    expect(created.code, created.stderr).to.equal(0);
    const client = JSON.parse(created.stdout) as { clientId: string; clientSecret: string; kind: string; tokenEndpointAuthMethod: string; redirectUris: string[] };
    expect(client).to.include({ kind: 'service', tokenEndpointAuthMethod: 'client_secret_basic' });
    expect(client.redirectUris).to.deep.equal([]);
    const body = await tokenFor(client.clientId, oauth.ClientSecretBasic(client.clientSecret));
    expect(body.scope?.split(' ')).to.have.members(['analytics:read', 'school:read']);

    const updated = await runCli(['--json', 'client', 'update', '--site', origin, '--client-id', client.clientId, '--auth-method', 'client_secret_post', '--dpop-bound'], env);
    expect(updated.code, updated.stdout + updated.stderr).to.equal(0);
    expect(JSON.parse(updated.stdout)).to.include({ tokenEndpointAuthMethod: 'client_secret_post', dpopBoundAccessTokens: true });
    const revoked = await runCli(['--json', 'client', 'revoke-tokens', '--site', origin, '--client-id', client.clientId], env);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(JSON.parse(revoked.stdout)).to.include({ revokedTokenPairs: 1 });
    expect((await api.withToken(body.access_token).call('getSchool')).status).to.equal(401);

    const bad = await runCli(['--json', 'client', 'create', '--site', origin, '--name', 'Bad', '--service', '--scope', 'openid', '--redirect-uri', 'https://x.example/cb'], env);
    expect(bad.code).to.not.equal(0);
    const pointers = (JSON.parse(bad.stdout) as { problems: Array<{ pointer: string }> }).problems.map((problem) => problem.pointer);
    expect(pointers).to.include.members(['/scopes/0', '/redirectUris']);
  });
});
