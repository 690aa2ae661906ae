import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import type { User } from '../src/accounts/users.js';
import { hashClientSecret } from '../src/clients/client-secrets.js';
import { validateClientKeys } from '../src/clients/client-keys.js';
import type { TokenEndpointAuthMethod } from '../src/clients/clients.js';
import { consumeJti } from '../src/oauth/single-use-jti.js';
import { forgetCachedKeySets, keySetTiming } from '../src/oauth/client-authentication/client-key-set.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { sha256Hex } from '../src/shared/random.js';
import { setMetadataDocumentHosts } from '../src/sites/registration-policy.js';
import { describeEachDatabase } from './support/databases.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser, postForm, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, testConfig, type TestServer } from './support/server.js';
import { json, useTrustedDocumentServer } from './support/test-ca.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const SCOPE = 'openid profile account:read';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

type Algorithm = 'ES256' | 'RS256' | 'EdDSA';
interface KeyPair {
  privateKey: CryptoKey;
  publicJwk: JWK;
  kid: string;
}

async function keyPair(alg: Algorithm, kid = `${alg}-${randomUUID()}`): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid }, kid };
}

const basicHeader = (credentials: string) => `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

describe('client authentication (RFC 6749 2.3, RFC 7523)', () => {
  const trusted = useTrustedDocumentServer();

  describeEachDatabase('client_secret_basic and private_key_jwt at the token, revocation and introspection endpoints', (scratch) => {
    let server: TestServer;
    let as: oauth.AuthorizationServer;
    let member: User;
    let prefix: string;
    const db = () => scratch().db;
    const origin = () => server.siteA.origin;
    const endpoint = (path: string) => `${origin()}/api/oauth/${path}`;

    before(async function () {
      this.timeout(120_000);
      // Variant B: the introspection endpoint authenticates clients too.
      server = await startTestServer(scratch(), { variant: 'B' });
      as = await discover(origin());
      member = await makeUser(db(), server.siteA, ['student'], 'Casey Keys');
      prefix = `/${scratch().kind}-${server.port}`;
      // The JWK Set server is on localhost: the site allowlists it, as an operator would an intranet host.
      await setMetadataDocumentHosts(db(), server.siteA.id, ['localhost']);
    });
    after(async () => server.stop());

    /** A confidential member client registered for `method` (keys written to the columns, as the admin API will). */
    async function client(method: TokenEndpointAuthMethod, keys: { jwks?: JWK[]; jwksUri?: string; signWith?: KeyPair } = {}, identity: { clientId?: string; secret?: string } = {}): Promise<TestClient> {
      const made = await makeClient(db(), server.siteA, { audience: 'member', confidential: method !== 'none', scopes: SCOPE.split(' ') });
      const clientId = identity.clientId ?? made.client.clientId;
      const secret = identity.secret ?? made.secret;
      await db()('oauth_clients')
        .where({ id: made.client.ref })
        .update({
          token_endpoint_auth_method: method,
          client_id: clientId,
          client_id_hash: sha256Hex(clientId),
          ...(identity.secret ? { secret_hash: await hashClientSecret(identity.secret) } : {}),
          jwks: keys.jwks ? JSON.stringify({ keys: keys.jwks }) : null,
          jwks_uri: keys.jwksUri ?? null,
        });
      const auth =
        method === 'client_secret_basic' ? oauth.ClientSecretBasic(secret ?? '')
        : method === 'client_secret_post' ? oauth.ClientSecretPost(secret ?? '')
        : method === 'private_key_jwt' && keys.signWith ? oauth.PrivateKeyJwt({ key: keys.signWith.privateKey, kid: keys.signWith.kid })
        : oauth.None();
      return { client: { ...made.client, clientId, tokenEndpointAuthMethod: method }, secret, oauthClient: { client_id: clientId, token_endpoint_auth_method: method }, auth };
    }

    const code = (test: TestClient) => issueCode(db(), server.siteA, test, member, SCOPE);

    /** A code exchanged by oauth4webapi with the client's own ClientAuth, the response validated as a strict client does. */
    async function tokensFor(test: TestClient): Promise<oauth.TokenEndpointResponse> {
      const grant = await code(test);
      return oauth.processAuthorizationCodeResponse(as, test.oauthClient, await exchangeCode(as, test, grant), { expectedNonce: grant.nonce });
    }

    /** Proper credentials for a raw request: what oauth4webapi's ClientAuth of the client adds to the body and headers. */
    async function credentials(test: TestClient): Promise<{ fields: Record<string, string>; headers: Record<string, string> }> {
      const body = new URLSearchParams();
      const headers = new Headers();
      await test.auth(as, test.oauthClient, body, headers);
      return { fields: Object.fromEntries(body), headers: Object.fromEntries(headers) };
    }

    /** The code grant form without client authentication, for raw requests. */
    async function codeForm(test: TestClient): Promise<Record<string, string>> {
      const grant = await code(test);
      return { grant_type: 'authorization_code', code: grant.code, code_verifier: grant.verifier, redirect_uri: 'http://127.0.0.1:8765/callback', resource: origin() };
    }

    /** Every request in `attempts` is refused with `error`; then the same code still exchanges with proper credentials. */
    async function refusedThenCodeStillWorks(test: TestClient, attempts: Array<{ fields?: Record<string, string>; headers?: Record<string, string> }>, error = 'invalid_client') {
      const form = await codeForm(test);
      const answers = [];
      for (const attempt of attempts) {
        const answer = await postForm(endpoint('token'), { ...form, ...attempt.fields }, attempt.headers);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(error === 'invalid_client' ? 401 : 400);
        expect(answer.body.error).to.equal(error);
        answers.push(answer);
      }
      const proper = await credentials(test);
      const good = await postForm(endpoint('token'), { ...form, ...proper.fields }, proper.headers);
      expect(good.status, JSON.stringify(good.body)).to.equal(200);
      return answers;
    }

    describe('client_secret_basic', () => {
      it('works with oauth4webapi for the code exchange, refresh, introspection and revocation', async () => {
        const app = await client('client_secret_basic');
        const tokens = await tokensFor(app);
        expect(tokens.access_token).to.be.a('string');
        const refreshed = await oauth.processRefreshTokenResponse(as, app.oauthClient, await oauth.refreshTokenGrantRequest(as, app.oauthClient, app.auth, tokens.refresh_token ?? '', { ...insecure, additionalParameters: { resource: origin() } }));
        const introspected = await oauth.processIntrospectionResponse(as, app.oauthClient, await oauth.introspectionRequest(as, app.oauthClient, app.auth, refreshed.access_token, insecure));
        expect(introspected).to.include({ active: true, client_id: app.client.clientId });
        await oauth.processRevocationResponse(await oauth.revocationRequest(as, app.oauthClient, app.auth, refreshed.refresh_token ?? '', insecure));
        const after = await oauth.processIntrospectionResponse(as, app.oauthClient, await oauth.introspectionRequest(as, app.oauthClient, app.auth, refreshed.access_token, insecure));
        expect(after.active).to.equal(false);
      });

      it('form-decodes the id and secret before comparing them (special characters, + as a space, percent-escapes)', async () => {
        const clientId = `app:with spaces+plus%percent&amp=é-${randomUUID()}`;
        const secret = `s3cr:t with +plus %25 & = ü ${randomUUID()}`;
        const app = await client('client_secret_basic', {}, { clientId, secret });
        // oauth4webapi form-encodes both (a space as +).
        expect((await tokensFor(app)).access_token).to.be.a('string');
        // %20 for a space decodes the same as +.
        const form = await codeForm(app);
        const spaced = await postForm(endpoint('token'), form, { authorization: basicHeader(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`) });
        expect(spaced.status, JSON.stringify(spaced.body)).to.equal(200);
        // Not form-encoded: the raw secret's "+" becomes a space and its "%25" a "%": no match.
        const raw = await postForm(endpoint('token'), await codeForm(app), { authorization: basicHeader(`${formEncode(clientId)}:${secret}`) });
        expect(raw.status).to.equal(401);
      });

      it('refuses malformed headers with invalid_client and a Basic challenge, and the code stays usable', async () => {
        const app = await client('client_secret_basic');
        const id = formEncode(app.client.clientId);
        const answers = await refusedThenCodeStillWorks(app, [
          { headers: { authorization: 'Basic' } },
          { headers: { authorization: 'Basic ' } },
          { headers: { authorization: 'Basic !!not-base64!!' } },
          { headers: { authorization: 'Basic YWJj=' } },
          { headers: { authorization: basicHeader(`${id}-without-a-colon`) } },
          { headers: { authorization: basicHeader(`${id}:bad%zzescape`) } },
          { headers: { authorization: basicHeader(`${id}%:secret`) } },
          { headers: { authorization: basicHeader(`:${app.secret}`) } },
          { headers: { authorization: basicHeader(`${id}:`) } },
          { headers: { authorization: `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}` } },
          { headers: { authorization: basicHeader(`${id}:wrong-secret`) } },
          { headers: { authorization: basicHeader(`unknown-client:${app.secret}`) } },
        ]);
        for (const answer of answers) expect(answer.headers.get('www-authenticate')).to.equal(`Basic realm="${origin()}", charset="UTF-8"`);
        expect(answers.map((answer) => answer.body.error_description)).to.satisfy((descriptions: string[]) => descriptions.every((text) => text.length > 10));
        expect(answers[2]?.body.error_description).to.match(/base64/);
        expect(answers[4]?.body.error_description).to.match(/colon/);
        expect(answers[5]?.body.error_description).to.match(/percent-escape/);
      });

      it('requires a client_id in the body to equal the Basic one', async () => {
        const app = await client('client_secret_basic');
        const other = await client('client_secret_basic');
        const header = { authorization: basicHeader(`${formEncode(app.client.clientId)}:${formEncode(app.secret ?? '')}`) };
        const [answer] = await refusedThenCodeStillWorks(app, [{ fields: { client_id: other.client.clientId }, headers: header }]);
        expect(answer?.body.error_description).to.match(/differs/);
        const same = await postForm(endpoint('token'), { ...(await codeForm(app)), client_id: app.client.clientId }, header);
        expect(same.status).to.equal(200);
      });
    });

    describe('one method per client', () => {
      it('refuses two methods in one request, naming the registered one', async () => {
        const app = await client('client_secret_basic');
        const header = { authorization: basicHeader(`${formEncode(app.client.clientId)}:${formEncode(app.secret ?? '')}`) };
        const answers = await refusedThenCodeStillWorks(app, [
          { fields: { client_secret: app.secret ?? '' }, headers: header },
          { fields: { client_assertion_type: JWT_BEARER, client_assertion: 'a.b.c' }, headers: header },
        ]);
        for (const answer of answers) expect(answer.body.error_description).to.match(/more than one client authentication method.*client_secret_basic/);
      });

      it('refuses the wrong method with a description naming the registered one', async () => {
        const basicApp = await client('client_secret_basic');
        const [post] = await refusedThenCodeStillWorks(basicApp, [{ fields: { client_id: basicApp.client.clientId, client_secret: basicApp.secret ?? '' } }]);
        expect(post?.body.error_description).to.match(/used client_secret_post, but it is registered for client_secret_basic/);
        const postApp = await client('client_secret_post');
        const basic = await postForm(endpoint('token'), await codeForm(postApp), { authorization: basicHeader(`${formEncode(postApp.client.clientId)}:${formEncode(postApp.secret ?? '')}`) });
        expect(basic.status).to.equal(401);
        expect(basic.body.error_description).to.match(/registered for client_secret_post/);
        expect(basic.headers.get('www-authenticate')).to.match(/^Basic realm=/);
        expect((await tokensFor(postApp)).access_token).to.be.a('string');
      });

      it('keeps public clients on none and refuses none from a confidential client (403 at revocation)', async () => {
        const publicApp = await client('none');
        const secretAnswer = await postForm(endpoint('token'), { ...(await codeForm(publicApp)), client_id: publicApp.client.clientId, client_secret: 'anything' });
        expect(secretAnswer.status).to.equal(401);
        expect(secretAnswer.body.error_description).to.match(/public client/);
        const basicAnswer = await postForm(endpoint('token'), await codeForm(publicApp), { authorization: basicHeader(`${formEncode(publicApp.client.clientId)}:x`) });
        expect(basicAnswer.status).to.equal(401);
        expect((await tokensFor(publicApp)).access_token).to.be.a('string');

        for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
          const app = await client(method);
          const tokens = await tokensFor(app);
          const none = await postForm(endpoint('token'), { ...(await codeForm(app)), client_id: app.client.clientId });
          expect(none.status).to.equal(401);
          expect(none.body.error_description).to.contain(method);
          const revoke = await postForm(endpoint('revoke'), { token: tokens.refresh_token ?? '', client_id: app.client.clientId });
          expect(revoke.status).to.equal(403);
          expect(revoke.body.error).to.equal('unauthorized_client');
          const introspected = await oauth.processIntrospectionResponse(as, app.oauthClient, await oauth.introspectionRequest(as, app.oauthClient, app.auth, tokens.access_token, insecure));
          expect(introspected.active, 'the token stays live after the refused revocation').to.equal(true);
        }
      });
    });

    describe('private_key_jwt', () => {
      for (const alg of ['ES256', 'RS256', 'EdDSA'] as const) {
        it(`works with oauth4webapi's PrivateKeyJwt and an inline ${alg} key: code exchange, refresh, introspection, revocation`, async () => {
          const key = await keyPair(alg);
          const app = await client('private_key_jwt', { jwks: [key.publicJwk], signWith: key });
          const tokens = await tokensFor(app);
          const refreshed = await oauth.processRefreshTokenResponse(as, app.oauthClient, await oauth.refreshTokenGrantRequest(as, app.oauthClient, app.auth, tokens.refresh_token ?? '', { ...insecure, additionalParameters: { resource: origin() } }));
          const introspected = await oauth.processIntrospectionResponse(as, app.oauthClient, await oauth.introspectionRequest(as, app.oauthClient, app.auth, refreshed.access_token, insecure));
          expect(introspected).to.include({ active: true, client_id: app.client.clientId });
          await oauth.processRevocationResponse(await oauth.revocationRequest(as, app.oauthClient, app.auth, refreshed.refresh_token ?? '', insecure));
          const revoked = await oauth.processIntrospectionResponse(as, app.oauthClient, await oauth.introspectionRequest(as, app.oauthClient, app.auth, refreshed.access_token, insecure));
          expect(revoked.active).to.equal(false);
        });
      }

      it('fetches keys from a jwks_uri under the metadata-document fetch policy, caches them, and refetches once for an unknown kid', async () => {
        forgetCachedKeySets();
        const first = await keyPair('ES256');
        const pathname = `${prefix}/jwks-rotating.json`;
        trusted.server.route(pathname, json({ keys: [first.publicJwk, { kty: 'oct', k: 'c2VjcmV0', kid: 'ignored-symmetric' }] }, { 'Content-Type': 'application/jwk-set+json' }));
        const jwksUri = trusted.server.url(pathname);
        const app = await client('private_key_jwt', { jwksUri, signWith: first });
        expect((await tokensFor(app)).access_token).to.be.a('string');
        expect((await tokensFor(app)).access_token).to.be.a('string');
        expect(trusted.server.requests(pathname), 'cached per process for its freshness lifetime').to.have.length(1);
        expect(trusted.server.requests(pathname)[0]?.accept).to.match(/application\/jwk-set\+json/);

        // Rotation: the client publishes a new key and signs with it; the unknown kid refetches the set.
        const rotated = await keyPair('RS256');
        trusted.server.route(pathname, json({ keys: [rotated.publicJwk] }));
        const saved = keySetTiming.refetchCooldownMs;
        keySetTiming.refetchCooldownMs = 0;
        try {
          const rotatedApp = { ...app, auth: oauth.PrivateKeyJwt({ key: rotated.privateKey, kid: rotated.kid }) };
          expect((await tokensFor(rotatedApp)).access_token).to.be.a('string');
          expect(trusted.server.requests(pathname)).to.have.length(2);
          // The old key is gone from the set.
          const old = await postForm(endpoint('token'), { ...(await codeForm(app)), ...(await assertionFields(app, first)) });
          expect(old.status).to.equal(401);
          expect(old.body.error_description).to.match(/not signed by a key registered/);
        } finally {
          keySetTiming.refetchCooldownMs = saved;
        }
      });

      it('refuses a jwks_uri on a private address the site has not allowlisted, and one that serves no JWK Set', async () => {
        forgetCachedKeySets();
        const key = await keyPair('ES256');
        const pathname = `${prefix}/jwks-private.json`;
        trusted.server.route(pathname, json({ keys: [key.publicJwk] }));
        const app = await client('private_key_jwt', { jwksUri: trusted.server.url(pathname), signWith: key });
        await setMetadataDocumentHosts(db(), server.siteA.id, []);
        try {
          const [answer] = await refusedThenCodeStillWorksAfter(app, key, async () => setMetadataDocumentHosts(db(), server.siteA.id, ['localhost']));
          expect(answer?.body.error_description).to.match(/127\.0\.0\.1, a private or reserved address/);
        } finally {
          await setMetadataDocumentHosts(db(), server.siteA.id, ['localhost']);
        }
        const emptyPath = `${prefix}/jwks-empty.json`;
        trusted.server.route(emptyPath, json({ keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }));
        const empty = await client('private_key_jwt', { jwksUri: trusted.server.url(emptyPath), signWith: key });
        const answer = await postForm(endpoint('token'), { ...(await codeForm(empty)), ...(await assertionFields(empty, key)) });
        expect(answer.status).to.equal(401);
        expect(answer.body.error_description).to.match(/no usable public signing key/);
      });

      /** Fields of a hand-made assertion: by default valid for the token endpoint; `claims`/`header` override. */
      async function assertionFields(test: TestClient, key: KeyPair, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<Record<string, string>> {
        const now = Math.floor(Date.now() / 1000);
        const payload = { iss: test.client.clientId, sub: test.client.clientId, aud: origin(), jti: randomUUID(), iat: now, exp: now + 60, ...claims };
        for (const [name, value] of Object.entries(payload)) if (value === undefined) delete (payload as Record<string, unknown>)[name];
        const alg = key.publicJwk.kty === 'EC' ? 'ES256' : key.publicJwk.kty === 'RSA' ? 'RS256' : 'EdDSA';
        const assertion = await new SignJWT(payload).setProtectedHeader({ alg, kid: key.kid, ...header }).sign(key.privateKey);
        return { client_id: test.client.clientId, client_assertion_type: JWT_BEARER, client_assertion: assertion };
      }

      async function refusedThenCodeStillWorksAfter(test: TestClient, key: KeyPair, fix: () => Promise<unknown>) {
        const form = await codeForm(test);
        const answer = await postForm(endpoint('token'), { ...form, ...(await assertionFields(test, key)) });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(401);
        expect(answer.body.error).to.equal('invalid_client');
        await fix();
        const good = await postForm(endpoint('token'), { ...form, ...(await assertionFields(test, key)) });
        expect(good.status, JSON.stringify(good.body)).to.equal(200);
        return [answer];
      }

      it('refuses bad assertions with invalid_client, and the code stays usable', async () => {
        const key = await keyPair('ES256');
        const app = await client('private_key_jwt', { jwks: [key.publicJwk], signWith: key });
        const now = Math.floor(Date.now() / 1000);
        const stranger = await keyPair('ES256', key.kid);
        const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
        const unsigned = `${b64({ alg: 'none' })}.${b64({ iss: app.client.clientId, sub: app.client.clientId, aud: origin(), jti: randomUUID(), exp: now + 60 })}.`;
        const hmac = await new SignJWT({ iss: app.client.clientId, sub: app.client.clientId, aud: origin(), jti: randomUUID(), exp: now + 60 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('a shared secret of at least 32 bytes!!'));
        const cases: Array<[string, Record<string, string>, RegExp]> = [
          ['expired', await assertionFields(app, key, { exp: now - 120, iat: now - 180 }), /expired/],
          ['lifetime too long', await assertionFields(app, key, { exp: now + 3600 }), /more than 5 minutes ahead/],
          ['no exp', await assertionFields(app, key, { exp: undefined }), /exp claim is required/],
          ['no jti', await assertionFields(app, key, { jti: undefined }), /jti claim is required/],
          ['iat in the future', await assertionFields(app, key, { iat: now + 600, exp: now + 120 }), /iat is in the future/],
          ['nbf in the future', await assertionFields(app, key, { nbf: now + 600, exp: now + 120 }), /not valid yet/],
          ['wrong aud', await assertionFields(app, key, { aud: 'https://other.example' }), /aud must name this server/],
          ['the other site as aud', await assertionFields(app, key, { aud: server.siteB.origin }), /aud must name this server/],
          ['wrong iss', await assertionFields(app, key, { iss: 'someone-else' }), /iss must be the client_id/],
          ['wrong sub', await assertionFields(app, key, { sub: 'someone-else' }), /sub must be the client_id/],
          ['alg none', { client_id: app.client.clientId, client_assertion_type: JWT_BEARER, client_assertion: unsigned }, /signed with none/],
          ['alg HS256', { client_id: app.client.clientId, client_assertion_type: JWT_BEARER, client_assertion: hmac }, /signed with HS256/],
          ['an unregistered key with the registered kid', await assertionFields(app, stranger), /not signed by a key registered/],
          ['not a JWT', { client_id: app.client.clientId, client_assertion_type: JWT_BEARER, client_assertion: 'not-a-jwt' }, /not a signed JWT/],
          ['an unknown assertion type', { ...(await assertionFields(app, key)), client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' }, /not supported/],
          ['a secret instead', { client_id: app.client.clientId, client_secret: 'guess' }, /registered for private_key_jwt/],
          ['nothing', { client_id: app.client.clientId }, /registered for private_key_jwt/],
        ];
        const answers = await refusedThenCodeStillWorks(app, cases.map(([, fields]) => ({ fields })));
        cases.forEach(([name, , description], index) => expect(answers[index]?.body.error_description, name).to.match(description));
      });

      it('accepts the endpoint URL or an array naming the issuer as aud, and the token endpoint URL at every endpoint', async () => {
        const key = await keyPair('EdDSA');
        const app = await client('private_key_jwt', { jwks: [key.publicJwk], signWith: key });
        const tokens = await tokensFor(app);
        for (const [path, aud] of [
          ['token', endpoint('token')],
          ['introspect', endpoint('introspect')],
          ['introspect', endpoint('token')],
          ['introspect', ['https://elsewhere.example', origin()]],
          ['revoke', endpoint('revoke')],
        ] as const) {
          const fields = path === 'token' ? await codeForm(app) : { token: tokens.access_token };
          const answer = await postForm(endpoint(path), { ...fields, ...(await assertionFields(app, key, { aud })) });
          expect(answer.status, `${path} ${JSON.stringify(aud)} ${JSON.stringify(answer.body)}`).to.equal(200);
        }
        const wrongEndpoint = await postForm(endpoint('introspect'), { token: tokens.access_token, ...(await assertionFields(app, key, { aud: endpoint('revoke') })) });
        expect(wrongEndpoint.status).to.equal(401);
      });

      it('uses a jti once, across two instances over one database, and a refused request consumes nothing', async function () {
        this.timeout(60_000);
        const key = await keyPair('ES256');
        const app = await client('private_key_jwt', { jwks: [key.publicJwk], signWith: key });
        const second: RunningServer = await startServer(testConfig({ variant: 'B', trustProxy: true, database: scratch().config }), { logger: createLogger('silent') });
        try {
          const viaSecond = { 'x-forwarded-host': new URL(origin()).host, 'x-forwarded-proto': 'http' };
          const introspect = (fields: Record<string, string>, headers: Record<string, string> = {}, base = origin()) =>
            postForm(`${base}/api/oauth/introspect`, { token: 'whatever', ...fields }, headers);

          // Refused for another reason (two methods): the jti is not recorded, so the same assertion then works.
          const fields = await assertionFields(app, key, { aud: [origin()] });
          const twoMethods = await introspect({ ...fields, client_secret: 'x' });
          expect(twoMethods.status).to.equal(401);
          expect((await introspect(fields)).status).to.equal(200);
          const replay = await introspect(fields, viaSecond, second.listeningOn);
          expect(replay.status).to.equal(401);
          expect(replay.body.error_description).to.match(/jti was already used/);

          // Ten copies at once, split over both instances: exactly one is accepted.
          const once = await assertionFields(app, key);
          const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? introspect(once) : introspect(once, viaSecond, second.listeningOn))));
          expect(answers.filter((answer) => answer.status === 200)).to.have.length(1);
          expect(answers.filter((answer) => answer.status === 401)).to.have.length(9);
        } finally {
          await second.stop(1000);
        }
      });

      it('refuses an assertion from a public client', async () => {
        const key = await keyPair('ES256');
        const publicApp = await client('none');
        const answer = await postForm(endpoint('token'), { ...(await codeForm(publicApp)), ...(await assertionFields(publicApp, key)) });
        expect(answer.status).to.equal(401);
        expect(answer.body.error_description).to.match(/public client/);
      });
    });

    it('records a jti once per purpose and issuer (consumeJti)', async () => {
      const expires = new Date(Date.now() + 60_000);
      const jti = randomUUID();
      expect(await consumeJti(db(), 'client_assertion', 'client-a', jti, expires)).to.equal(true);
      expect(await consumeJti(db(), 'client_assertion', 'client-a', jti, expires)).to.equal(false);
      expect(await consumeJti(db(), 'client_assertion', 'client-b', jti, expires)).to.equal(true);
      expect(await consumeJti(db(), 'dpop', 'client-a', jti, expires)).to.equal(true);
    });
  });
});

describe('client key registration (validateClientKeys)', () => {
  it('accepts public EC P-256, RSA 2048 and Ed25519 keys with unique kids, inline or by an https jwks_uri', async () => {
    const keys = await Promise.all((['ES256', 'RS256', 'EdDSA'] as const).map((alg) => keyPair(alg)));
    expect(validateClientKeys({ method: 'private_key_jwt', jwks: { keys: keys.map((key) => key.publicJwk) } })).to.deep.equal([]);
    expect(validateClientKeys({ method: 'private_key_jwt', jwksUri: 'https://app.example/jwks.json' })).to.deep.equal([]);
    expect(validateClientKeys({ method: 'client_secret_basic' })).to.deep.equal([]);
  });

  it('refuses private keys, symmetric keys, small RSA keys, other curves, duplicate kids and bad URIs, with pointers', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = { ...(await exportJWK(privateKey)), kid: 'p' };
    const { publicKey: small } = await import('node:crypto').then((crypto) => crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }));
    const smallJwk = { ...small.export({ format: 'jwk' }), kid: 's' };
    const ok = await keyPair('ES256', 'same');
    const problems = validateClientKeys({
      method: 'private_key_jwt',
      jwks: { keys: [privateJwk, smallJwk, { kty: 'oct', k: 'c2VjcmV0', kid: 'o' }, { kty: 'EC', crv: 'P-384', x: 'a', y: 'b', kid: 'c' }, ok.publicJwk, { ...ok.publicJwk }] },
    });
    const at = (pointer: string) => problems.filter((problem) => problem.pointer === pointer).map((problem) => problem.message).join('; ');
    expect(at('/jwks/keys/0')).to.match(/public key.*\bd\b/);
    expect(at('/jwks/keys/1')).to.match(/at least 2048 bits/);
    expect(at('/jwks/keys/2')).to.match(/public key.*\bk\b/);
    expect(at('/jwks/keys/3')).to.match(/crv "P-384" is not accepted/);
    expect(at('/jwks/keys/5/kid')).to.match(/duplicate kid "same"/);
    expect(validateClientKeys({ method: 'private_key_jwt', jwksUri: 'http://app.example/jwks.json' })).to.deep.equal([{ pointer: '/jwksUri', message: 'must use https' }]);
    expect(validateClientKeys({ method: 'private_key_jwt' })[0]?.message).to.match(/needs the public keys/);
    expect(validateClientKeys({ method: 'private_key_jwt', jwks: { keys: [ok.publicJwk] }, jwksUri: 'https://app.example/jwks.json' })[0]?.message).to.match(/not both/);
    expect(validateClientKeys({ method: 'client_secret_post', jwksUri: 'https://app.example/jwks.json' })[0]?.message).to.match(/only for private_key_jwt/);
  });
});
