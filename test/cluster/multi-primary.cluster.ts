/**
 * Two instances of the product on two primaries of a three-node MariaDB Galera cluster (node 1 and node 2), serving
 * one site, checked across the instances. `npm run test:cluster`; the cluster is ../shared/scale/galera.sh.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import type { User } from '../../src/accounts/users.js';
import { SIGN_IN_LIMITS, signInBuckets } from '../../src/accounts/sign-in.js';
import type { Database } from '../../src/db/connection.js';
import { tokenKey } from '../../src/oauth/tokens/token-keys.js';
import { PROJECT_ROOT } from '../../src/shared/paths.js';
import { createSite, type Site } from '../../src/sites/sites.js';
import { flushUses, recordUse, usageBundle } from '../../src/usage/tally.js';
import { createPkcePair, findForm, pageMessage, pageNameOf } from '../support/authorize-flow.js';
import { issueCode, makeClient, makeUser, PASSWORD, REDIRECT_URI, type TestClient } from '../support/oauth-fixtures.js';
import {
  acquireCluster,
  clusterSize,
  createDatabase,
  dropDatabase,
  killNode,
  knexOnNode,
  nodeAnswers,
  nodeUrl,
  onNode,
  releaseCluster,
  scratchDatabaseName,
  startNode,
  waitForClusterSize,
  type ClusterLease,
} from './support/galera.js';
import { cliOn, forwardedHeaders, getJsonAt, onInstance, postFormAt, runCleanUp, SITE_ORIGIN, siteFetch, startInstance, viaInstance, type CleanUpStep, type Instance, type JsonAnswer } from './support/instances.js';
import { authorizeThroughPages, CookieJar, describe as describeAnswer, openSignInPage, signInForm, submit, type PageAnswer } from './support/pages.js';

const say = (line: string) => process.stdout.write(`      ${line}\n`);

interface PairRow {
  id: number;
  grant_id: string;
  access_token_hash: string;
  refresh_token_hash: string;
  revoked_at: Date | null;
  revoked_reason: string | null;
  parent_pair_id: number | null;
  successor_pair_id: number | null;
  first_used_at: Date | null;
}

interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token?: string;
}

describe('multi-primary: two instances on two Galera nodes serving one site', function () {
  this.timeout(300000);

  let lease: ClusterLease | undefined;
  let databaseName: string | undefined;
  let db: Database | undefined;
  let logDir: string;
  let one: Instance | undefined;
  let two: Instance | undefined;
  let site: Site;
  let member: User;
  let app: TestClient;
  const extraDatabases: string[] = [];

  const i1 = () => one as Instance;
  const i2 = () => two as Instance;
  const node1 = () => db as Database;

  before(async function () {
    this.timeout(400000);
    lease = await acquireCluster(say);
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-cluster-'));
    say(`server logs: ${logDir}`);
    databaseName = scratchDatabaseName('main');
    await createDatabase(databaseName);
    // Instance 1 migrates the empty database on start; instance 2 then finds it up to date.
    one = await startInstance('instance1', nodeUrl(1, databaseName), logDir);
    two = await startInstance('instance2', nodeUrl(2, databaseName), logDir);
    say(`instance 1 ${one.url} on node 1 (:3311), instance 2 ${two.url} on node 2 (:3312), database ${databaseName}`);
    db = knexOnNode(1, databaseName);
    site = await createSite(db, { origin: SITE_ORIGIN, name: 'Cluster School', subdomain: 'cluster' });
    member = await makeUser(db, site, ['student'], 'Cluster Member');
    app = await makeClient(db, site, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'email', 'account:read'] });
  });

  after(async function () {
    this.timeout(400000);
    const steps: CleanUpStep[] = [
      ['stop instance 1', async () => one?.stop()],
      ['stop instance 2', async () => two?.stop()],
      ['close the admin pool', async () => db?.destroy()],
      ['node 2 back', async () => {
        if (lease && !(await nodeAnswers(2))) {
          say('node 2 is down: starting it again');
          await startNode(2);
          await waitForClusterSize(3);
        }
      }],
      ['drop the databases', async () => {
        for (const name of [databaseName, ...extraDatabases]) if (name) await dropDatabase(name);
      }],
      ['release the cluster', async () => releaseCluster(lease, say)],
    ];
    await runCleanUp(steps, [one, two], say);
  });

  // --- helpers ----------------------------------------------------------------------------------------------------

  function exchangeAt(instance: Instance, grant: { code: string; verifier: string }): Promise<JsonAnswer> {
    return postFormAt(instance, '/api/oauth/token', {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: app.client.clientId,
      code_verifier: grant.verifier,
      resource: SITE_ORIGIN,
    });
  }

  function refreshAt(instance: Instance, refreshToken: string): Promise<JsonAnswer> {
    return postFormAt(instance, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: app.client.clientId });
  }

  async function userinfoStatus(instance: Instance, accessToken: string): Promise<number> {
    const response = await siteFetch(instance, '/api/oauth/userinfo', { headers: { authorization: `Bearer ${accessToken}` } });
    await response.arrayBuffer();
    return response.status;
  }

  /** A fresh grant: a code written on node 1, exchanged at `instance`. */
  async function tokensAt(instance: Instance, scope = 'openid profile account:read'): Promise<Tokens> {
    const grant = await issueCode(node1(), site, app, member, scope);
    const answer = await exchangeAt(instance, grant);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as unknown as Tokens;
  }

  async function pairOf(token: { access?: string; refresh?: string }): Promise<PairRow> {
    const where = token.access !== undefined ? { access_token_hash: tokenKey(token.access) } : { refresh_token_hash: tokenKey(token.refresh ?? '') };
    const row = (await node1()('token_pairs').where(where).first()) as PairRow | undefined;
    if (!row) throw new Error('no token_pairs row for the token');
    return row;
  }

  function statusCounts(statuses: number[]): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }

  // --- 1 ----------------------------------------------------------------------------------------------------------

  it('1. a code issued through instance 1’s pages is exchanged at instance 2; one code sent to both at once is exchanged once, and the replay revokes the winner’s tokens', async () => {
    const as = await oauth.processDiscoveryResponse(new URL(SITE_ORIGIN), await oauth.discoveryRequest(new URL(SITE_ORIGIN), { algorithm: 'oauth2', ...viaInstance(i1()) }));
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const request = { clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid profile account:read', codeChallenge: await oauth.calculatePKCECodeChallenge(verifier), state, nonce };
    const issued = await authorizeThroughPages({ authorize: i1(), signIn: i1(), consent: i1() }, request, { email: member.email, password: PASSWORD });
    expect(issued.iss).to.equal(SITE_ORIGIN);
    expect(issued.state).to.equal(state);

    const callback = new URL(REDIRECT_URI);
    callback.search = new URLSearchParams({ code: issued.code, state, iss: SITE_ORIGIN }).toString();
    const parameters = oauth.validateAuthResponse(as, app.oauthClient, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, app.oauthClient, app.auth, parameters, REDIRECT_URI, verifier, { additionalParameters: { resource: SITE_ORIGIN }, ...viaInstance(i2()) });
    const result = await oauth.processAuthorizationCodeResponse(as, app.oauthClient, response, { expectedNonce: nonce, requireIdToken: true });
    expect(oauth.getValidatedIdTokenClaims(result)?.sub).to.equal(String(member.id));
    expect(await userinfoStatus(i1(), result.access_token)).to.equal(200);
    expect(await userinfoStatus(i2(), result.access_token)).to.equal(200);

    // The same code at both instances at the same moment, several rounds. Once both have answered, the replay has
    // revoked what the winner got: at both instances, access and refresh.
    const rounds = 20;
    const stale: string[] = [];
    const winners = { instance1: 0, instance2: 0 };
    for (let round = 0; round < rounds; round += 1) {
      const grant = await issueCode(node1(), site, app, member, 'openid account:read');
      const answers = await Promise.all([exchangeAt(i1(), grant), exchangeAt(i2(), grant)]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses, JSON.stringify(answers.map((answer) => answer.body))).to.deep.equal([200, 400]);
      const winnerIndex = answers.findIndex((answer) => answer.status === 200);
      winners[winnerIndex === 0 ? 'instance1' : 'instance2'] += 1;
      const winner = answers[winnerIndex] as JsonAnswer;
      const loser = answers[1 - winnerIndex] as JsonAnswer;
      expect(loser.body.error).to.equal('invalid_grant');
      if (/not recognised/.test(String(loser.body.error_description))) {
        // Not a lost race: the loser's node had not yet applied the code that node 1 had committed.
        stale.push(`round ${round + 1}: the code written on node 1 was not yet visible on node ${2 - winnerIndex}: instance ${2 - winnerIndex} answered "${String(loser.body.error_description)}"`);
        continue;
      }
      expect(String(loser.body.error_description)).to.match(/already used/);
      const tokens = winner.body as unknown as Tokens;
      const afterRace = [await userinfoStatus(i1(), tokens.access_token), await userinfoStatus(i2(), tokens.access_token)];
      const refresh = await refreshAt(i2(), tokens.refresh_token);
      if (afterRace.some((status) => status !== 401) || refresh.status !== 400) {
        const hash = tokenKey(tokens.access_token);
        const rows = await onNode<{ revoked_at: Date | null; revoked_reason: string | null; first_used_at: Date | null }>(1, 'SELECT revoked_at, revoked_reason, first_used_at FROM token_pairs WHERE access_token_hash = ?', [hash], databaseName);
        stale.push(
          `round ${round + 1}: winner instance ${winnerIndex + 1}, loser's revocation committed on node ${2 - winnerIndex}; then userinfo at instance 1/2 ${afterRace.join('/')}, refresh ${refresh.status}; ` +
            `the pair now: revoked_at ${rows[0]?.revoked_at?.toISOString()} (${rows[0]?.revoked_reason}), first_used_at ${rows[0]?.first_used_at?.toISOString() ?? 'null'}`,
        );
        continue;
      }
      expect(refresh.body.error).to.equal('invalid_grant');
      expect((await pairOf({ access: tokens.access_token })).revoked_reason).to.equal('code_replayed');
    }
    say(`${rounds} rounds of one code at both instances: each one 200 and one 400 invalid_grant (winners ${JSON.stringify(winners)})`);
    for (const line of stale) say(`stale read: ${line}`);
    expect(stale, 'rounds where an instance read data older than what the other instance had committed').to.deep.equal([]);
  });

  // --- 2 ----------------------------------------------------------------------------------------------------------

  it('2. 100 concurrent refreshes of one refresh token, 50 at each instance: all 200, one live successor, reuse ends the grant', async () => {
    const first = await tokensAt(i1());
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 100 }, (_, index) => refreshAt(index % 2 === 0 ? i1() : i2(), first.refresh_token)));
    const elapsed = Date.now() - started;
    const byInstance = [0, 1].map((parity) => statusCounts(answers.filter((_, index) => index % 2 === parity).map((answer) => answer.status)));
    say(`100 refreshes in ${elapsed} ms: instance 1 ${JSON.stringify(byInstance[0])}, instance 2 ${JSON.stringify(byInstance[1])}`);
    const failures = answers.filter((answer) => answer.status !== 200);
    if (failures.length > 0) say(`non-200 answers: ${JSON.stringify(statusCounts(failures.map((answer) => answer.status)))}; first: ${JSON.stringify(failures[0]?.body)}`);
    expect(failures.map((answer) => `${answer.status} ${String(answer.body.error)}`)).to.deep.equal([]);

    const old = await pairOf({ refresh: first.refresh_token });
    const successors = (await node1()('token_pairs').where({ parent_pair_id: old.id })) as PairRow[];
    expect(successors).to.have.length(100);
    const live = successors.filter((pair) => pair.revoked_at === null);
    expect(live.map((pair) => pair.id)).to.deep.equal([old.successor_pair_id]);
    expect(successors.filter((pair) => pair.revoked_at !== null).map((pair) => pair.revoked_reason)).to.deep.equal(Array<string>(99).fill('superseded'));
    expect(old.revoked_at).to.equal(null);

    const issuedTokens = answers.map((answer) => answer.body as unknown as Tokens);
    const liveTokens = issuedTokens.find((tokens) => tokenKey(tokens.access_token) === live[0]?.access_token_hash) as Tokens;
    const supersededTokens = issuedTokens.find((tokens) => tokens !== liveTokens) as Tokens;
    expect(liveTokens).to.not.equal(undefined);

    // The old pair stays live until the live successor is presented; that revokes it (rotated).
    expect(await userinfoStatus(i2(), first.access_token)).to.equal(200);
    expect(await userinfoStatus(i2(), liveTokens.access_token)).to.equal(200);
    expect((await pairOf({ refresh: first.refresh_token })).revoked_reason).to.equal('rotated');
    expect(await userinfoStatus(i1(), first.access_token)).to.equal(401);
    expect(await userinfoStatus(i1(), supersededTokens.access_token)).to.equal(401);
    expect(await userinfoStatus(i2(), supersededTokens.access_token)).to.equal(401);

    // The old refresh token again: reuse. The whole grant ends, the live successor with it.
    const reuse = await refreshAt(i1(), first.refresh_token);
    expect(reuse.status).to.equal(400);
    expect(reuse.body.error).to.equal('invalid_grant');
    const grant = (await node1()('token_pairs').where({ grant_id: old.grant_id })) as PairRow[];
    expect(grant).to.have.length(101);
    expect(grant.filter((pair) => pair.revoked_at === null)).to.deep.equal([]);
    expect(await userinfoStatus(i2(), liveTokens.access_token)).to.equal(401);
    expect(await userinfoStatus(i1(), liveTokens.access_token)).to.equal(401);
  });

  // --- 3 ----------------------------------------------------------------------------------------------------------

  it('3. a refresh at instance 1 and the first use of its access token at instance 2 revoke the predecessor at both', async () => {
    const first = await tokensAt(i1());
    const refreshed = await refreshAt(i1(), first.refresh_token);
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    const second = refreshed.body as unknown as Tokens;
    // Until the new access token is presented, the predecessor still works (a lost response may be retried).
    expect((await pairOf({ access: first.access_token })).revoked_at).to.equal(null);
    expect(await userinfoStatus(i2(), second.access_token)).to.equal(200);
    expect(await userinfoStatus(i2(), first.access_token)).to.equal(401);
    expect(await userinfoStatus(i1(), first.access_token)).to.equal(401);
    expect((await pairOf({ access: first.access_token })).revoked_reason).to.equal('rotated');
    // The predecessor's refresh token is now reuse, at either instance; it ends the grant.
    const reuse = await refreshAt(i2(), first.refresh_token);
    expect(reuse.status).to.equal(400);
    expect(reuse.body.error).to.equal('invalid_grant');
    expect(await userinfoStatus(i1(), second.access_token)).to.equal(401);
  });

  // --- 4 ----------------------------------------------------------------------------------------------------------

  {
    const limit = SIGN_IN_LIMITS.perAccount.limit;
    const authorization = () => ({ clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid', codeChallenge: createPkcePair().challenge, state: 's', nonce: 'n' });

    /** Failing sign-ins for `email`, attempt k posted to instances[k % n], each on the page the previous one returned. */
    async function failingSignIns(email: string, instances: Instance[], attempts: number, clientAddress: string): Promise<Array<{ status: number; page: string; message: string; retryAfter: string | null; at: string }>> {
      const jar = new CookieJar();
      let page = await openSignInPage(instances[0] as Instance, jar, authorization(), clientAddress);
      const results = [];
      for (let attempt = 0; attempt < attempts; attempt += 1) {
        const instance = instances[attempt % instances.length] as Instance;
        const answer: PageAnswer = await submit(instance, jar, page, signInForm(page), { email, password: 'wrong password' }, clientAddress);
        if (answer.kind !== 'page') throw new Error(`attempt ${attempt + 1}: ${describeAnswer(answer)}`);
        results.push({ status: answer.status, page: pageNameOf(answer.html) ?? 'unknown', message: pageMessage(answer.html), retryAfter: answer.headers.get('retry-after'), at: instance.name });
        if (findForm(answer.html, '/oauth/authorize/sign-in')) page = answer;
        else page = await openSignInPage(instance, jar, authorization(), clientAddress);
      }
      return results;
    }

    it(`4a. the sign-in rate limit counts the attempts made at both instances: it trips at attempt ${limit + 1} when alternating, as on one instance`, async () => {
      const alternating = await failingSignIns(member.email, [i1(), i2()], limit + 2, '203.0.113.41');
      const other = await makeUser(node1(), site, ['student'], 'Single Instance');
      const single = await failingSignIns(other.email, [i1()], limit + 2, '203.0.113.42');
      say(`alternating: ${alternating.map((result) => `${result.at.replace('instance', 'i')}:${result.status}`).join(' ')}`);
      say(`one instance: ${single.map((result) => result.status).join(' ')}`);
      say(`429 page: "${alternating[limit]?.message}", Retry-After ${alternating[limit]?.retryAfter}`);
      const expected = [...Array<number>(limit).fill(400), 429, 429];
      expect(alternating.map((result) => result.status)).to.deep.equal(expected);
      expect(single.map((result) => result.status)).to.deep.equal(expected);
      for (const result of alternating.slice(limit)) {
        // Sliding windows: the wait until one more attempt fits may reach two windows (at most 30 minutes, docs/authorize.md).
        expect(Number(result.retryAfter)).to.be.within(1, 2 * SIGN_IN_LIMITS.perAccount.windowSeconds);
        expect(result.message).to.match(/too many unsuccessful sign-in attempts/i);
      }
      expect(alternating.slice(0, limit).every((result) => result.page === 'sign-in' && /not correct/.test(result.message))).to.equal(true);
      // The count lives in the database: the account bucket holds every attempt of both instances.
      const buckets = [signInBuckets(member.email, '203.0.113.41').account, signInBuckets(other.email, '203.0.113.42').account];
      const counters = (await node1()('rate_limit_counters').whereIn('bucket', buckets)) as Array<{ hits: number }>;
      expect(counters.map((row) => Number(row.hits))).to.deep.equal([limit + 2, limit + 2]);
    });

    it(`4b. the sign-in rate limit counts a concurrent burst at both instances exactly: ${limit} refusals by password, the rest 429`, async () => {
      const victim = await makeUser(node1(), site, ['student'], 'Burst Target');
      const attempts = 12;
      const clientAddress = '203.0.113.43';
      const browsers = await Promise.all(
        Array.from({ length: attempts }, async (_, index) => {
          const jar = new CookieJar();
          const instance = index % 2 === 0 ? i1() : i2();
          return { jar, instance, page: await openSignInPage(instance, jar, authorization(), clientAddress) };
        }),
      );
      const answers = await Promise.all(browsers.map(({ jar, instance, page }) => submit(instance, jar, page, signInForm(page), { email: victim.email, password: 'wrong password' }, clientAddress)));
      const statuses = answers.map((answer) => answer.status);
      say(`burst of ${attempts} (6 per instance): ${JSON.stringify(statusCounts(statuses))}`);
      const unexpected = answers.filter((answer) => answer.status !== 400 && answer.status !== 429);
      expect(unexpected.map(describeAnswer)).to.deep.equal([]);
      expect(statusCounts(statuses)).to.deep.equal({ 400: limit, 429: attempts - limit });
    });
  }

  // --- 5 ----------------------------------------------------------------------------------------------------------

  it('5. both instances publish the same JWKS, verify each other’s id_tokens, and see a key rotated at node 1', async () => {
    const metadata1 = await getJsonAt(i1(), '/.well-known/oauth-authorization-server');
    const metadata2 = await getJsonAt(i2(), '/.well-known/oauth-authorization-server');
    expect(metadata2.body).to.deep.equal(metadata1.body);
    const jwksUri = String(metadata1.body.jwks_uri);
    expect(new URL(jwksUri).origin).to.equal(SITE_ORIGIN);
    const jwks = async (instance: Instance) => (await getJsonAt(instance, jwksUri)).body as { keys: Array<{ kid: string }> };
    const remoteJwks = (instance: Instance) => createRemoteJWKSet(onInstance(instance, jwksUri), { headers: forwardedHeaders(), cacheMaxAge: 0 });
    const verifyAt = (instance: Instance, idToken: string) => jwtVerify(idToken, remoteJwks(instance), { issuer: SITE_ORIGIN, audience: app.client.clientId, algorithms: ['ES256'] });

    const before1 = await jwks(i1());
    expect(before1.keys.length).to.be.greaterThan(0);
    expect(await jwks(i2())).to.deep.equal(before1);

    const fromOne = await tokensAt(i1(), 'openid profile');
    const oldKid = decodeProtectedHeader(String(fromOne.id_token)).kid;
    expect(before1.keys.map((key) => key.kid)).to.include(oldKid);
    expect((await verifyAt(i2(), String(fromOne.id_token))).payload.sub).to.equal(String(member.id));

    const rotated = await cliOn(nodeUrl(1, databaseName as string), ['keys', 'rotate', '--site', SITE_ORIGIN, '--json']);
    expect(rotated.code, rotated.stderr + rotated.stdout).to.equal(0);
    const newKid = (JSON.parse(rotated.stdout) as { kid: string }).kid;
    expect(newKid).to.be.a('string').and.not.equal(oldKid);

    const after2 = await jwks(i2());
    expect(after2.keys.map((key) => key.kid)).to.include.members([newKid, oldKid]);
    expect(await jwks(i1())).to.deep.equal(after2);
    const fromTwo = await tokensAt(i2(), 'openid profile');
    expect(decodeProtectedHeader(String(fromTwo.id_token)).kid).to.equal(newKid);
    expect((await verifyAt(i1(), String(fromTwo.id_token))).payload.sub).to.equal(String(member.id));
    // The id_token signed before the rotation still verifies at both (the retired key stays published).
    expect((await verifyAt(i2(), String(fromOne.id_token))).payload.sub).to.equal(String(member.id));
    const active = (await node1()('signing_keys').where({ site_id: site.id, state: 'active' })) as Array<{ kid: string }>;
    expect(active.map((key) => key.kid)).to.deep.equal([newKid]);
    say(`kid ${String(oldKid).slice(0, 12)}… → ${newKid.slice(0, 12)}…; JWKS identical at both (${after2.keys.length} keys)`);
  });

  // --- 6 ----------------------------------------------------------------------------------------------------------

  it('6. `schoolgate migrate` started on node 1 and node 2 at once applies every migration once; every table has a primary key', async () => {
    const fresh = scratchDatabaseName('migrate');
    extraDatabases.push(fresh);
    await createDatabase(fresh);
    const started = Date.now();
    const [first, second] = await Promise.all([cliOn(nodeUrl(1, fresh), ['migrate', '--json']), cliOn(nodeUrl(2, fresh), ['migrate', '--json'])]);
    say(`node 1: exit ${first.code} ${first.stdout.replace(/\s+/g, ' ').slice(0, 200)} ${first.stderr.trim().slice(0, 300)}`);
    say(`node 2: exit ${second.code} ${second.stdout.replace(/\s+/g, ' ').slice(0, 200)} ${second.stderr.trim().slice(0, 300)}`);
    say(`both done in ${Date.now() - started} ms`);
    expect([first.code, second.code]).to.deep.equal([0, 0]);
    const appliedBy = [first, second].map((result) => (JSON.parse(result.stdout) as { applied: string[] }).applied);

    const files = fs.readdirSync(path.join(PROJECT_ROOT, 'src/db/migrations')).filter((file) => /^\d{4}_.*\.ts$/.test(file)).map((file) => file.replace(/\.ts$/, '')).sort();
    const recorded = await onNode<{ name: string; times: number }>(3, 'SELECT name, COUNT(*) AS times FROM knex_migrations GROUP BY name ORDER BY name', [], fresh);
    expect(recorded.map((row) => [row.name, Number(row.times)])).to.deep.equal(files.map((name) => [name, 1]));
    expect([...(appliedBy[0] ?? []), ...(appliedBy[1] ?? [])].sort()).to.deep.equal(files);
    expect((await onNode<{ is_locked: number }>(2, 'SELECT is_locked FROM knex_migrations_lock', [], fresh)).map((row) => Number(row.is_locked))).to.deep.equal([0]);

    // The schema is complete: the same tables, columns and indexes as the database instance 1 migrated alone.
    const shape = (schema: string) =>
      onNode<{ shape: string }>(
        3,
        `SELECT CONCAT_WS(' ', c.table_name, c.column_name, c.column_type, c.is_nullable, c.column_key) AS shape FROM information_schema.columns c
         WHERE c.table_schema = ? ORDER BY c.table_name, c.column_name`,
        [schema],
      ).then((rows) => rows.map((row) => row.shape));
    const freshShape = await shape(fresh);
    expect(freshShape.length).to.be.greaterThan(100);
    expect(freshShape).to.deep.equal(await shape(databaseName as string));

    const withoutPrimaryKey = await onNode<{ name: string }>(
      1,
      `SELECT CONCAT(t.table_schema, '.', t.table_name) AS name FROM information_schema.tables t
       LEFT JOIN information_schema.table_constraints c ON c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.constraint_type = 'PRIMARY KEY'
       WHERE t.table_schema IN (?, ?) AND t.table_type = 'BASE TABLE' AND c.constraint_name IS NULL ORDER BY name`,
      [fresh, databaseName],
    );
    const tables = await onNode<{ n: number }>(1, "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'", [fresh]);
    say(`${files.length} migrations recorded once each; ${Number(tables[0]?.n)} tables, without a primary key: ${withoutPrimaryKey.length === 0 ? 'none' : withoutPrimaryKey.map((row) => row.name).join(', ')}`);
    expect(withoutPrimaryKey.map((row) => row.name)).to.deep.equal([]);
  });

  // --- 6b ---------------------------------------------------------------------------------------------------------

  it('6b. 100 calls counting two deprecated elements, 50 through node 1 and 50 through node 2, each followed by a flush at once: each daily count is exactly 100', async () => {
    const node2 = knexOnNode(2, databaseName as string);
    try {
      const nodes = [node1(), node2] as const;
      const bundle = usageBundle('graphql', ['Course.slug', 'Query.courses(after:)']);
      const now = Date.now();
      const started = Date.now();
      // Each call is counted in memory and its instance's tally flushed straight away, so 100 additive upserts of the
      // same two rows race on two nodes (no lease here: the sums must hold without one). A flush that lost its
      // conflict more often than the retries allow keeps its counts, and the last flushes below write them.
      await Promise.all(
        Array.from({ length: 100 }, async (_, index) => {
          const node = index % 2 === 0 ? nodes[0] : nodes[1];
          recordUse(node, site.id, app.client.ref, bundle, now);
          await flushUses(node).catch(() => 0);
        }),
      );
      for (const node of nodes) await flushUses(node);
      const counts = await onNode<{ element: string; uses: number }>(3, 'SELECT element, uses FROM api_usage WHERE site_id = ? ORDER BY element', [site.id], databaseName);
      say(`${counts.map((row) => `${row.element} ${Number(row.uses)}`).join(', ')} after ${Date.now() - started} ms`);
      expect(counts.map((row) => [row.element, Number(row.uses)])).to.deep.equal([
        ['Course.slug', 100],
        ['Query.courses(after:)', 100],
      ]);
    } finally {
      await node2.destroy();
    }
  });

  // --- 7 ----------------------------------------------------------------------------------------------------------

  it('7. node 2 killed under load (16 connections, 20 s, kill at 10 s): instance 1 answers 2xx or a clean 503, and nothing is lost', async function () {
    this.timeout(240000);
    const connections = Number(process.env.CLUSTER_LOAD_CONNECTIONS ?? 16);
    const durationMs = Number(process.env.CLUSTER_LOAD_SECONDS ?? 20) * 1000;
    const killAtMs = durationMs / 2;
    const chains = await Promise.all(Array.from({ length: connections }, () => tokensAt(i1(), 'openid account:read')));

    interface Outcome {
      kind: 'refresh' | 'userinfo';
      startedAt: number;
      endedAt: number;
      status: number | 'network-error';
      error?: string;
    }
    const outcomes: Outcome[] = [];
    const refreshed: string[] = [];
    const start = Date.now();
    const deadline = start + durationMs;
    let killedAt = Number.POSITIVE_INFINITY;

    const worker = async (chain: Tokens) => {
      let step = 0;
      while (Date.now() < deadline) {
        const kind = step % 4 === 0 ? 'refresh' : 'userinfo';
        step += 1;
        const startedAt = Date.now();
        try {
          if (kind === 'refresh') {
            const answer = await refreshAt(i1(), chain.refresh_token);
            const outcome: Outcome = { kind, startedAt, endedAt: Date.now(), status: answer.status };
            if (answer.status === 200) {
              const tokens = answer.body as unknown as Tokens;
              chain.access_token = tokens.access_token;
              chain.refresh_token = tokens.refresh_token;
              refreshed.push(tokens.access_token);
            } else if (!(answer.status === 503 && answer.body.error === 'temporarily_unavailable')) {
              outcome.error = JSON.stringify(answer.body);
            }
            outcomes.push(outcome);
          } else {
            const response = await siteFetch(i1(), '/api/oauth/userinfo', { headers: { authorization: `Bearer ${chain.access_token}` } });
            const text = await response.text();
            const outcome: Outcome = { kind, startedAt, endedAt: Date.now(), status: response.status };
            if (response.status === 503) {
              try {
                if ((JSON.parse(text) as { error?: string }).error !== 'temporarily_unavailable') outcome.error = text.slice(0, 300);
              } catch {
                outcome.error = text.slice(0, 300);
              }
            } else if (response.status !== 200) outcome.error = text.slice(0, 300);
            outcomes.push(outcome);
          }
        } catch (error) {
          outcomes.push({ kind, startedAt, endedAt: Date.now(), status: 'network-error', error: error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error) });
          await sleep(50);
        }
      }
    };

    const killer = (async () => {
      await sleep(killAtMs);
      const { pid, signalledAt } = await killNode(2);
      killedAt = signalledAt;
      say(`node 2 (pid ${pid}) killed with SIGKILL at ${((killedAt - start) / 1000).toFixed(1)} s; its process was gone ${Date.now() - signalledAt} ms later`);
    })();
    await Promise.all([...chains.map(worker), killer]);

    const phase = (outcome: Outcome) => (outcome.endedAt >= killedAt ? 'after' : 'before');
    for (const name of ['before', 'after'] as const) {
      const inPhase = outcomes.filter((outcome) => phase(outcome) === name);
      const latencies = inPhase.map((outcome) => outcome.endedAt - outcome.startedAt).sort((a, b) => a - b);
      const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? 0;
      say(
        `${name} the kill: ${inPhase.length} requests (refresh ${JSON.stringify(statusCounts(inPhase.filter((o) => o.kind === 'refresh').map((o) => Number(o.status) || 0)))}, ` +
          `userinfo ${JSON.stringify(statusCounts(inPhase.filter((o) => o.kind === 'userinfo').map((o) => Number(o.status) || 0)))}), ` +
          `latency p50 ${percentile(50)} ms, p99 ${percentile(99)} ms, max ${latencies.at(-1) ?? 0} ms`,
      );
    }
    const bad = outcomes.filter((outcome) => outcome.error !== undefined);
    if (bad.length > 0) say(`unclean answers: ${bad.length}; first: ${bad[0]?.kind} ${bad[0]?.status} ${bad[0]?.error}`);
    say(`cluster size seen by node 1 after the kill: ${await clusterSize(1)}; ${refreshed.length} successful refreshes`);

    expect(Number.isFinite(killedAt), 'node 2 was killed').to.equal(true);
    expect(outcomes.filter((outcome) => phase(outcome) === 'after').length).to.be.greaterThan(0);
    expect(bad.map((outcome) => `${phase(outcome)} ${outcome.kind} ${outcome.status} ${outcome.error}`)).to.deep.equal([]);
    expect(outcomes.filter((outcome) => phase(outcome) === 'before' && outcome.status !== 200).length, 'before the kill everything is 200').to.equal(0);

    // Nothing lost: every pair a 200 refresh answered is in the database on node 1 and node 3 ...
    for (const node of [1, 3] as const) {
      const hashes = refreshed.map((token) => tokenKey(token));
      let found = 0;
      for (let index = 0; index < hashes.length; index += 500) {
        const slice = hashes.slice(index, index + 500);
        const rows = await onNode<{ n: number }>(node, `SELECT COUNT(*) AS n FROM token_pairs WHERE access_token_hash IN (${slice.map(() => '?').join(',')})`, slice, databaseName);
        found += Number(rows[0]?.n ?? 0);
      }
      expect(found, `refreshed pairs found on node ${node}`).to.equal(refreshed.length);
    }
    // ... and every chain's latest tokens still work at instance 1.
    const finals = await Promise.all(
      chains.map(async (chain) => {
        const userinfo = await userinfoStatus(i1(), chain.access_token);
        const refresh = await refreshAt(i1(), chain.refresh_token);
        return `${userinfo}/${refresh.status}`;
      }),
    );
    expect(finals).to.deep.equal(Array<string>(connections).fill('200/200'));
    say(`each of the ${connections} chains: latest access token 200 at userinfo, latest refresh token 200`);

    // Node 2 back, so the cluster is as it was found.
    await startNode(2);
    await waitForClusterSize(3);
    say('node 2 rejoined: wsrep_cluster_size 3');
  });
});
