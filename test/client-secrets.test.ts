import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import type { User } from '../src/accounts/users.js';
import { clientSecretMatches, verifyClientSecret } from '../src/clients/client-secrets.js';
import { requireClient } from '../src/clients/clients.js';
import { clientSecretProblem } from '../src/clients/secret-strength.js';
import { requireDate } from '../src/db/connection.js';
import type { ImportDocument } from '../src/import/document.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { sha256Hex } from '../src/shared/random.js';
import { describeEachDatabase } from './support/databases.js';
import { issueCode, makeUser, postForm, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';
import { importRefusal } from './support/import-refusal.js';

/** 43 base64url characters: 258 bits if random (docs/import.md, "Client secret strength"). */
const STRONG = 'Xq3vB8nT_k2LmP9wR4sY7zA1cD6fG0hJ-eU5iO8tWbN';
const OTHER_STRONG = 'Zr7mK2pQ_w9XcV4nB1tY8uL3jH6gF0dS-aE5oI2kRmT';
const LONG_AGO = new Date('2020-01-02T03:04:05.000Z');
const SCOPE = 'openid account:read';

const repeat = (alphabet: string, length: number): string => Array.from({ length }, (_, index) => alphabet[(index * 7) % alphabet.length]).join('');

describe('client secret strength rule (docs/import.md, "Client secret strength")', () => {
  const cases: Array<{ name: string; alphabet: string; minimum: number }> = [
    { name: 'base64url', alphabet: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', minimum: 43 },
    { name: 'one letter case', alphabet: 'abcdefghijklmnopqrstuvwxyz234567', minimum: 55 },
    { name: 'hexadecimal', alphabet: '0123456789abcdef', minimum: 64 },
    { name: 'decimal', alphabet: '0123456789', minimum: 78 },
  ];
  for (const { name, alphabet, minimum } of cases) {
    it(`needs ${minimum} characters for a ${name} secret`, () => {
      expect(clientSecretProblem(repeat(alphabet, minimum))).to.equal(null);
      expect(clientSecretProblem(repeat(alphabet, minimum - 1))).to.contain(`at least ${minimum} characters, this one has ${minimum - 1}`);
    });
  }

  it('refuses characters outside base64url, and says how to make a good secret', () => {
    for (const secret of [`${STRONG}+`, `${STRONG}/`, `${STRONG}=`, `${STRONG} `, `${STRONG}é`, '']) {
      expect(clientSecretProblem(secret), JSON.stringify(secret)).to.contain('may use only A-Z, a-z, 0-9, "-" and "_"');
    }
    expect(clientSecretProblem('short')).to.contain("openssl rand -base64 32 | tr '+/' '-_' | tr -d '='");
    expect(clientSecretProblem(STRONG)).to.equal(null);
    expect(clientSecretProblem(OTHER_STRONG)).to.equal(null);
  });
});

describeEachDatabase('client secrets: strength, storage and verification', (scratch) => {
  let server: TestServer;
  let member: User;
  const db = () => scratch().db;
  let clientCounter = 0;

  before(async () => {
    server = await startTestServer(scratch());
    member = await makeUser(db(), server.siteA, ['student'], 'Sam Secret');
  });
  after(async () => server.stop());

  function documentWith(clientId: string, clientSecret: string | undefined): ImportDocument {
    return {
      formatVersion: 1,
      site: { origin: server.siteA.origin, name: server.siteA.name },
      oauthClients: [
        {
          clientId,
          name: 'Reporting console',
          audience: 'member',
          confidential: true,
          ...(clientSecret === undefined ? {} : { clientSecret }),
          scopes: ['openid', 'account:read'],
          redirectUris: [REDIRECT_URI],
        },
      ],
    };
  }

  async function importClient(clientSecret: string): Promise<string> {
    clientCounter += 1;
    const clientId = `secret-console-${clientCounter}`;
    await importSiteDocument(db(), documentWith(clientId, clientSecret));
    return clientId;
  }

  async function storedRow(clientId: string): Promise<{ secret_hash: string; secret_rotated_at: unknown; version: number }> {
    return db()('oauth_clients').where({ site_id: server.siteA.id, client_id: clientId }).first('secret_hash', 'secret_rotated_at', 'version');
  }

  /** A code for the client, exchanged at the token endpoint with the given client authentication. */
  async function exchange(clientId: string, auth: { post?: string; basic?: string }): Promise<{ status: number; body: Record<string, unknown> }> {
    const client = await requireClient(db(), server.siteA.id, clientId);
    const test: TestClient = { client, secret: null, oauthClient: { client_id: clientId }, auth: oauth.None() };
    const grant = await issueCode(db(), server.siteA, test, member, SCOPE);
    const headers: Record<string, string> = auth.basic === undefined ? {} : { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(auth.basic)}`).toString('base64')}` };
    return postForm(
      `${server.siteA.origin}/api/oauth/token`,
      {
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        code_verifier: grant.verifier,
        resource: server.siteA.origin,
        ...(auth.post === undefined ? {} : { client_secret: auth.post }),
      },
      headers,
    );
  }

  it('refuses a weak imported secret with its pointer and how to make one; nothing is written', async () => {
    for (const weak of ['demo-operator-secret-change-me', repeat('0123456789abcdef', 50), repeat('abcdefghijklmnopqrstuvwxyz-', 54), `${STRONG}+/=`]) {
      const document = documentWith('weak-secret-console', weak);
      const error = await importRefusal(importSiteDocument(db(), document));
      expect(error.code).to.equal('invalid_import_document');
      expect(error.problems).to.have.length(1);
      expect(error.problems[0]?.pointer).to.equal('/oauthClients/0/clientSecret');
      expect(error.problems[0]?.message).to.contain("openssl rand -base64 32 | tr '+/' '-_' | tr -d '='");
    }
    expect(await db()('oauth_clients').where({ client_id: 'weak-secret-console' }).first()).to.equal(undefined);
  });

  it('accepts a 43-character base64url secret and stores a salted scrypt hash of it, not a SHA-256', async () => {
    const first = await importClient(STRONG);
    const second = await importClient(STRONG);
    const [one, two] = [await storedRow(first), await storedRow(second)];
    for (const row of [one, two]) {
      expect(row.secret_hash).to.match(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(row.secret_hash).not.to.contain(sha256Hex(STRONG));
      expect(row.secret_hash).not.to.contain(STRONG);
      expect(await clientSecretMatches(STRONG, row.secret_hash)).to.equal(true);
      expect(await clientSecretMatches(OTHER_STRONG, row.secret_hash)).to.equal(false);
    }
    // Salted: the same secret hashes differently for two clients.
    expect(one.secret_hash).not.to.equal(two.secret_hash);
  });

  it('authenticates client_secret_post at the token endpoint (code and refresh grants) and refuses a wrong secret with 401 invalid_client', async () => {
    const clientId = await importClient(STRONG);
    const issued = await exchange(clientId, { post: STRONG });
    expect(issued.status).to.equal(200);
    expect(issued.body.access_token).to.be.a('string');
    // Verified again, now from this instance's memory of the success: the answer is the same.
    expect((await exchange(clientId, { post: STRONG })).status).to.equal(200);

    for (const wrong of [OTHER_STRONG, STRONG.slice(0, -1), `${STRONG}x`, '']) {
      const refused = await exchange(clientId, { post: wrong });
      expect(refused.status, wrong).to.equal(401);
      expect(refused.body.error).to.equal('invalid_client');
    }

    const token = `${server.siteA.origin}/api/oauth/token`;
    const refreshToken = String(issued.body.refresh_token);
    const wrongRefresh = await postForm(token, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: OTHER_STRONG });
    expect(wrongRefresh.status).to.equal(401);
    expect(wrongRefresh.body.error).to.equal('invalid_client');
    const refreshed = await postForm(token, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: STRONG });
    expect(refreshed.status).to.equal(200);
    expect(refreshed.body.refresh_token).to.be.a('string').and.not.equal(refreshToken);
  });

  it('still refuses client_secret_basic, even with the right secret: only client_secret_post is offered (docs/oauth.md)', async () => {
    const clientId = await importClient(STRONG);
    const basic = await exchange(clientId, { basic: STRONG });
    expect(basic.status).to.equal(401);
    expect(basic.body.error).to.equal('invalid_client');
    expect(String(basic.body.error_description)).to.contain('client_secret_post');
  });

  it('verifies a legacy sha256$ hash and replaces it with scrypt on the first success, keeping the rotation time', async () => {
    const clientId = await importClient(STRONG);
    const legacy = `sha256$${sha256Hex(STRONG)}`;
    await db()('oauth_clients').where({ site_id: server.siteA.id, client_id: clientId }).update({ secret_hash: legacy, secret_rotated_at: LONG_AGO });
    const before = await storedRow(clientId);

    const wrong = await exchange(clientId, { post: OTHER_STRONG });
    expect(wrong.status).to.equal(401);
    expect((await storedRow(clientId)).secret_hash).to.equal(legacy);

    expect((await exchange(clientId, { post: STRONG })).status).to.equal(200);
    const upgraded = await storedRow(clientId);
    expect(upgraded.secret_hash).to.match(/^scrypt\$/);
    expect(await clientSecretMatches(STRONG, upgraded.secret_hash)).to.equal(true);
    expect(requireDate(upgraded.secret_rotated_at).getTime()).to.equal(LONG_AGO.getTime());
    expect(upgraded.version).to.equal(before.version);
    expect((await exchange(clientId, { post: STRONG })).status).to.equal(200);
  });

  it('does not overwrite a secret rotated after the legacy hash was read (compare-and-set on the old value)', async () => {
    const clientId = await importClient(STRONG);
    const legacy = `sha256$${sha256Hex(STRONG)}`;
    await db()('oauth_clients').where({ site_id: server.siteA.id, client_id: clientId }).update({ secret_hash: legacy });
    // Another instance rotates the secret between this instance's read and its upgrade.
    const client = await requireClient(db(), server.siteA.id, clientId);
    await importSiteDocument(db(), documentWith(clientId, OTHER_STRONG));
    const rotated = (await storedRow(clientId)).secret_hash;
    expect(await verifyClientSecret(db(), client.ref, STRONG, legacy)).to.equal(true);
    expect((await storedRow(clientId)).secret_hash).to.equal(rotated);
  });

  it('keeps the stored hash and rotation time when a re-import carries the same secret, and rotates on a different one', async () => {
    const clientId = await importClient(STRONG);
    await db()('oauth_clients').where({ site_id: server.siteA.id, client_id: clientId }).update({ secret_rotated_at: LONG_AGO });
    const before = await storedRow(clientId);

    const same = await importSiteDocument(db(), documentWith(clientId, STRONG));
    expect(same.counts.oauth_clients).to.deep.equal({ created: 0, updated: 0, unchanged: 1 });
    const kept = await storedRow(clientId);
    expect(kept.secret_hash).to.equal(before.secret_hash);
    expect(requireDate(kept.secret_rotated_at).getTime()).to.equal(LONG_AGO.getTime());

    // Without clientSecret the stored secret is kept too.
    await importSiteDocument(db(), documentWith(clientId, undefined));
    expect((await storedRow(clientId)).secret_hash).to.equal(before.secret_hash);

    const changed = await importSiteDocument(db(), documentWith(clientId, OTHER_STRONG));
    expect(changed.counts.oauth_clients).to.include({ updated: 1 });
    const rotated = await storedRow(clientId);
    expect(rotated.secret_hash).to.match(/^scrypt\$/).and.not.equal(before.secret_hash);
    expect(requireDate(rotated.secret_rotated_at).getTime()).to.be.greaterThan(LONG_AGO.getTime());
    expect(await clientSecretMatches(OTHER_STRONG, rotated.secret_hash)).to.equal(true);
    expect(await clientSecretMatches(STRONG, rotated.secret_hash)).to.equal(false);
    expect((await exchange(clientId, { post: STRONG })).status).to.equal(401);
    expect((await exchange(clientId, { post: OTHER_STRONG })).status).to.equal(200);
  });

  it('upgrades a legacy hash on a re-import with the same secret, keeping the rotation time', async () => {
    const clientId = await importClient(STRONG);
    await db()('oauth_clients').where({ site_id: server.siteA.id, client_id: clientId }).update({ secret_hash: `sha256$${sha256Hex(STRONG)}`, secret_rotated_at: LONG_AGO });
    await importSiteDocument(db(), documentWith(clientId, STRONG));
    const row = await storedRow(clientId);
    expect(row.secret_hash).to.match(/^scrypt\$/);
    expect(await clientSecretMatches(STRONG, row.secret_hash)).to.equal(true);
    expect(requireDate(row.secret_rotated_at).getTime()).to.equal(LONG_AGO.getTime());
  });
});
