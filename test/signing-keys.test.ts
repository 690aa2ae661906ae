import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { calculateJwkThumbprint, createRemoteJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, type JWK } from 'jose';
import { KEY_ENCRYPTION_ENV } from '../src/config/key-encryption.js';
import type { Database } from '../src/db/connection.js';
import { keyEncryptionKeyId, keyRingFrom, type KeyRing } from '../src/keys/key-ring.js';
import { SigningKeyUnreadableError } from '../src/keys/private-key-encryption.js';
import type { ReencryptionReport } from '../src/keys/reencryption.js';
import { activeSigningKey, privateJwkOf, rotateSigningKey, type StoredPrivateKey } from '../src/keys/signing-keys.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { TEST_KEY_ENCRYPTION_KEY, useTestKeyEncryptionKey } from './support/key-encryption.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser } from './support/oauth-fixtures.js';
import { runCli } from './support/processes.js';
import { startTestServer, type TestServer } from './support/server.js';

const TEST_KEY = new Uint8Array(Buffer.from(TEST_KEY_ENCRYPTION_KEY, 'base64url'));
const TEST_KEY_ID = keyEncryptionKeyId(TEST_KEY);
// A compact JWE with `dir` has an empty encrypted-key part: header..iv.ciphertext.tag (RFC 7516 7.1).
const DIR_JWE = /^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/;

function ring(current: Uint8Array, previous: Uint8Array[] = []): KeyRing {
  return keyRingFrom({ current, previous, generatedKeyFile: undefined });
}

function base64url(key: Uint8Array): string {
  return Buffer.from(key).toString('base64url');
}

interface Row extends StoredPrivateKey {
  id: number;
  state: string;
  public_jwk: string;
}

async function rowsOf(db: Database, siteId?: number): Promise<Row[]> {
  const query = db<Row>('signing_keys').select('id', 'site_id', 'kid', 'state', 'public_jwk', 'private_jwk', 'encryption_key_id').orderBy('id');
  return siteId === undefined ? query : query.where({ site_id: siteId });
}

/** A private key as the version before encryption stored it: the plain JWK, no encryption_key_id. */
async function insertPlaintextKey(db: Database, siteId: number, state: 'active' | 'retired'): Promise<{ kid: string; privateJwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256' };
  const now = new Date();
  await db('signing_keys').insert({
    site_id: siteId,
    kid,
    alg: 'ES256',
    public_jwk: JSON.stringify({ ...publicJwk, kid, alg: 'ES256', use: 'sig' }),
    private_jwk: JSON.stringify(privateJwk),
    state,
    activated_at: now,
    retired_at: state === 'retired' ? now : null,
    created_at: now,
  });
  return { kid, privateJwk };
}

/** The error a promise rejects with, or undefined when it resolves. */
function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** Runs with other key-encryption settings in this process's environment, which the in-process server reads. */
async function withKeyEnvironment<T>(env: Record<string, string>, work: () => Promise<T>): Promise<T> {
  for (const [name, value] of Object.entries(env)) process.env[name] = value;
  try {
    return await work();
  } finally {
    useTestKeyEncryptionKey();
  }
}

describeEachDatabase('signing keys encrypted at rest (docs/signing-keys.md)', (scratch) => {
  let server: TestServer;
  let spare: Site;
  const db = () => scratch().db;
  const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(args, { DATABASE_URL: scratch().url, ...env });

  before(async () => {
    server = await startTestServer(scratch());
    spare = await createSite(db(), { origin: `https://spare-${randomBytes(3).toString('hex')}.example`, name: 'Spare School' });
  });
  after(async () => server.stop());

  /** An id_token from a real code exchange at `site`, verified against the site's JWKS. */
  async function verifiedIdToken(site: Site): Promise<{ kid: string | undefined; status: number; body: Record<string, unknown> }> {
    const member = await makeUser(db(), site, ['student'], 'Key Member');
    const app = await makeClient(db(), site, { audience: 'member', confidential: false, scopes: ['openid', 'profile'] });
    const grant = await issueCode(db(), site, app, member, 'openid profile');
    const as = await discover(site.origin);
    const response = await exchangeCode(as, app, grant);
    const body = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) return { kid: undefined, status: response.status, body };
    const idToken = String(body.id_token);
    const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(String(as.jwks_uri))), { issuer: site.origin, audience: app.client.clientId });
    expect(payload.nonce).to.equal(grant.nonce);
    return { kid: decodeProtectedHeader(idToken).kid, status: response.status, body };
  }

  it('stores no private key material: the row holds a JWE under the configured key, and id_tokens verify against the JWKS', async () => {
    const { kid } = await verifiedIdToken(server.siteA);
    const [row, ...others] = await rowsOf(db(), server.siteA.id);
    expect(others).to.deep.equal([]);
    expect(row?.kid).to.equal(kid);
    expect(row?.encryption_key_id).to.equal(TEST_KEY_ID);
    expect(String(row?.private_jwk)).to.match(DIR_JWE);
    expect(decodeProtectedHeader(String(row?.private_jwk))).to.include({ alg: 'dir', enc: 'A256GCM', kid: TEST_KEY_ID, cty: 'jwk+json' });

    // What a dump of the table holds: nothing of the private key.
    const key = await activeSigningKey(db(), server.siteA.id);
    expect(key.privateJwk.d).to.be.a('string');
    const dump = JSON.stringify(await db()('signing_keys').select('*'));
    expect(dump).not.to.contain(String(key.privateJwk.d));
    for (const stored of await rowsOf(db())) {
      expect(String(stored.private_jwk)).to.match(DIR_JWE);
      expect(JSON.parse(stored.public_jwk)).not.to.have.property('d');
    }
  });

  it('refuses a ciphertext copied into another key’s row', async () => {
    const other = await createSite(db(), { origin: `https://moved-${randomBytes(3).toString('hex')}.example`, name: 'Moved School' });
    await activeSigningKey(db(), other.id);
    const [source] = await rowsOf(db(), server.siteA.id);
    await db()('signing_keys').where({ site_id: other.id }).update({ private_jwk: source?.private_jwk });
    const failure = await failureOf(activeSigningKey(db(), other.id));
    expect(failure).to.be.instanceOf(SigningKeyUnreadableError);
    expect((failure as Error).message).to.match(/does not decrypt with key-encryption key .*belongs to another key/);
    await db()('signing_keys').where({ site_id: other.id }).delete();
  });

  it('refuses a wrong key-encryption key clearly, answers a plain server_error, and never makes a new key over the old one', async () => {
    const wrong = randomBytes(32);
    const before = await rowsOf(db(), server.siteA.id);

    const failure = await failureOf(activeSigningKey(db(), server.siteA.id, ring(wrong)));
    expect(failure).to.be.instanceOf(SigningKeyUnreadableError);
    expect((failure as Error).message).to.equal(
      `the private signing key ${before[0]?.kid} of site ${server.siteA.id} is encrypted with key-encryption key ${TEST_KEY_ID}, which is not configured here (current key ${keyEncryptionKeyId(wrong)})`,
    );

    const answer = await withKeyEnvironment({ [KEY_ENCRYPTION_ENV.key]: base64url(wrong) }, () => verifiedIdToken(server.siteA));
    expect(answer.status).to.equal(500);
    expect(answer.body).to.deep.equal({ error: 'server_error', error_description: 'the server failed to handle the request' });
    expect(await rowsOf(db(), server.siteA.id)).to.deep.equal(before);

    // The right key again: the same key signs.
    expect((await verifiedIdToken(server.siteA)).kid).to.equal(before[0]?.kid);
  });

  it('reads keys under the current and the previous key-encryption keys, as instances do during a rotation', async () => {
    const next = randomBytes(32);
    const rotating = ring(next, [TEST_KEY]);
    const old = await activeSigningKey(db(), server.siteA.id, rotating);
    expect(old.privateJwk.d).to.be.a('string');

    // A key made by an instance already on the new key is readable by any instance that holds it, current or previous.
    const made = await rotateSigningKey(db(), spare.id, rotating);
    const [row] = (await rowsOf(db(), spare.id)).filter((candidate) => candidate.kid === made.kid);
    expect(row?.encryption_key_id).to.equal(keyEncryptionKeyId(next));
    expect((await privateJwkOf(row as Row, ring(TEST_KEY, [next]))).d).to.equal(made.privateJwk.d);
    expect(await failureOf(privateJwkOf(row as Row, ring(TEST_KEY)))).to.be.instanceOf(SigningKeyUnreadableError);
    await db()('signing_keys').where({ site_id: spare.id }).delete();
  });

  it('keeps keys stored before encryption working, and encrypts one the first time it signs', async () => {
    const legacy = await insertPlaintextKey(db(), server.siteB.id, 'active');
    const { kid } = await verifiedIdToken(server.siteB);
    expect(kid).to.equal(legacy.kid);
    const [row] = await rowsOf(db(), server.siteB.id);
    expect(row?.encryption_key_id).to.equal(TEST_KEY_ID);
    expect(String(row?.private_jwk)).to.match(DIR_JWE);
    expect((await privateJwkOf(row as Row, ring(TEST_KEY))).d).to.equal(legacy.privateJwk.d);
  });

  it('rotate-encryption-key re-encrypts every key, plaintext ones included, so the old key-encryption key is no longer needed', async () => {
    const retired = await insertPlaintextKey(db(), spare.id, 'retired');
    const next = randomBytes(32);
    const nextId = keyEncryptionKeyId(next);
    const all = await rowsOf(db());
    const rotatingEnv = { [KEY_ENCRYPTION_ENV.key]: base64url(next), [KEY_ENCRYPTION_ENV.previous]: TEST_KEY_ENCRYPTION_KEY };

    const dry = await cli(['--json', 'keys', 'rotate-encryption-key', '--dry-run'], rotatingEnv);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(JSON.parse(dry.stdout)).to.deep.include({ dryRun: true, currentKeyId: nextId, pending: all.length, reencrypted: all.length, unreadable: [] });
    expect(await rowsOf(db())).to.deep.equal(all);

    // Batches of one, in text: progress on stderr, the summary on stdout.
    const text = await cli(['keys', 'rotate-encryption-key', '--batch-size', '1'], rotatingEnv);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.contain(`re-encrypted ${all.length} of ${all.length} private signing keys under key-encryption key ${nextId}`);
    expect(text.stdout).to.contain('previous key-encryption keys are no longer needed');
    expect(text.stderr.trim().split('\n')).to.have.length(all.length);

    const after = await rowsOf(db());
    expect(after.map((row) => row.encryption_key_id)).to.deep.equal(all.map(() => nextId));
    for (const row of after) expect(String(row.private_jwk)).to.match(DIR_JWE);
    // The new key alone reads every key, the retired one stored before encryption too.
    const alone = ring(next);
    const decrypted = await Promise.all(after.map((row) => privateJwkOf(row, alone)));
    expect(decrypted.find((jwk) => jwk.kid === retired.kid)?.d).to.equal(retired.privateJwk.d);

    // Idempotent: nothing left to do.
    const again = await cli(['--json', 'keys', 'rotate-encryption-key'], { [KEY_ENCRYPTION_ENV.key]: base64url(next) });
    expect(again.code, again.stderr).to.equal(0);
    const report = JSON.parse(again.stdout) as ReencryptionReport;
    expect(report).to.deep.include({ pending: 0, reencrypted: 0, unreadable: [] });
    expect(report.keys).to.deep.equal([{ encryptionKeyId: nextId, role: 'current', keys: all.length }]);

    // Back to the tests' key, which the in-process server holds.
    const back = await cli(['--json', 'keys', 'rotate-encryption-key'], { [KEY_ENCRYPTION_ENV.previous]: base64url(next) });
    expect(back.code, back.stderr).to.equal(0);
    expect(JSON.parse(back.stdout)).to.deep.include({ currentKeyId: TEST_KEY_ID, reencrypted: all.length });
    await db()('signing_keys').where({ site_id: spare.id }).delete();
  });

  it('rotate-encryption-key leaves keys it cannot decrypt as they are, names them and exits 1', async () => {
    const stranger = randomBytes(32);
    await rotateSigningKey(db(), spare.id, ring(stranger));
    const before = await rowsOf(db(), spare.id);

    const result = await cli(['--json', 'keys', 'rotate-encryption-key']);
    expect(result.code).to.equal(1);
    const report = JSON.parse(result.stdout) as ReencryptionReport;
    expect(report.unreadable).to.deep.equal([
      {
        site: spare.origin,
        kid: before[0]?.kid,
        state: 'active',
        encryptionKeyId: keyEncryptionKeyId(stranger),
        message: `the private signing key ${before[0]?.kid} of site ${spare.id} is encrypted with key-encryption key ${keyEncryptionKeyId(stranger)}, which is not configured here (current key ${TEST_KEY_ID})`,
      },
    ]);
    expect(report.keys.find((count) => count.encryptionKeyId === keyEncryptionKeyId(stranger))).to.deep.equal({ encryptionKeyId: keyEncryptionKeyId(stranger), role: 'not configured', keys: 1 });
    expect(await rowsOf(db(), spare.id)).to.deep.equal(before);

    const text = await cli(['keys', 'rotate-encryption-key']);
    expect(text.code).to.equal(1);
    expect(text.stdout).to.contain(`Add the key-encryption key they name to ${KEY_ENCRYPTION_ENV.previous}`);
    await db()('signing_keys').where({ site_id: spare.id }).delete();
  });

});

describe('without a configured key-encryption key', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-kek-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an SQLite store gets one generated next to its database file, readable by its owner only, and then reused', () => {
    const file = path.join(dir, 'key-encryption-key');
    const first = keyRingFrom({ current: undefined, previous: [], generatedKeyFile: file });
    expect(first.generated).to.deep.equal({ file, created: true });
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    expect(fs.readdirSync(dir)).to.deep.equal(['key-encryption-key']);
    const second = keyRingFrom({ current: undefined, previous: [], generatedKeyFile: file });
    expect(second.generated).to.deep.equal({ file, created: false });
    expect(second.current.id).to.equal(first.current.id);
    expect(first.current.id).to.equal(keyEncryptionKeyId(new Uint8Array(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64url'))));
  });

  it('the CLI on an SQLite store encrypts with the generated key', async () => {
    const database = path.join(dir, 'school.sqlite');
    const env = { DATABASE_URL: `sqlite:${database}`, [KEY_ENCRYPTION_ENV.key]: undefined };
    expect((await runCli(['site', 'create', '--origin', 'https://bare.example', '--name', 'Bare'], env)).code).to.equal(0);
    const rotated = await runCli(['--json', 'keys', 'rotate', '--site', 'https://bare.example'], env);
    expect(rotated.code, rotated.stderr).to.equal(0);
    const status = await runCli(['--json', 'keys', 'rotate-encryption-key', '--dry-run'], env);
    const generated = keyRingFrom({ current: undefined, previous: [], generatedKeyFile: path.join(dir, 'key-encryption-key') });
    expect(generated.generated?.created).to.equal(false);
    expect((JSON.parse(status.stdout) as ReencryptionReport).keys).to.deep.equal([{ encryptionKeyId: generated.current.id, role: 'current', keys: 1 }]);
  });

  it('a generated key file that holds no key is refused with one line naming the file', () => {
    const file = path.join(dir, 'key-encryption-key');
    fs.writeFileSync(file, 'not a key\n');
    expect(() => keyRingFrom({ current: undefined, previous: [], generatedKeyFile: file })).to.throw(`${file}: not a key-encryption key`);
  });

  it('a MySQL store gets none: key commands refuse with one line before connecting', async () => {
    const result = await runCli(['keys', 'rotate-encryption-key'], { DATABASE_URL: 'mysql://root@127.0.0.1:1/test', [KEY_ENCRYPTION_ENV.key]: undefined });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/^schoolgate: configuration error: no key-encryption key for the signing keys: set SCHOOLGATE_KEY_ENCRYPTION_KEY .*\n$/);
  });
});
