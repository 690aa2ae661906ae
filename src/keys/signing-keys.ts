import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { parseJsonColumn, type Database } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';
import { configuredKeyRing, type KeyEncryptionKey, type KeyRing } from './key-ring.js';
import { decryptPrivateJwk, encryptPrivateJwk, SigningKeyUnreadableError } from './private-key-encryption.js';

/** id_tokens are signed with ES256 (spec: Token response). */
export const SIGNING_ALG = 'ES256';
/** Retired keys stay in the JWKS this long, so id_tokens signed just before a rotation still verify (their life is 10 minutes). */
const RETIRED_KEY_GRACE_MS = 24 * 60 * 60 * 1000;

export interface SigningKey {
  kid: string;
  alg: typeof SIGNING_ALG;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** The columns of a signing_keys row that hold its private key. */
export interface StoredPrivateKey {
  site_id: number;
  kid: string;
  /** A compact JWE of the private JWK, or (encryption_key_id null) the plain JWK of a key stored before encryption. */
  private_jwk: unknown;
  /** The key-encryption key that encrypted private_jwk (docs/signing-keys.md); null for a plaintext key. */
  encryption_key_id: string | null;
}

interface KeyRow extends StoredPrivateKey {
  id: number;
  state: 'active' | 'retired';
  retired_at: Date | null;
  public_jwk: unknown;
}

async function newKey(): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    alg: SIGNING_ALG,
    publicJwk: { ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG },
  };
}

async function insertActiveKey(trx: Database, siteId: number, key: SigningKey, encryptionKey: KeyEncryptionKey, now: Date): Promise<void> {
  await trx('signing_keys').insert({
    site_id: siteId,
    kid: key.kid,
    alg: key.alg,
    public_jwk: JSON.stringify(key.publicJwk),
    private_jwk: await encryptPrivateJwk(key.privateJwk, { siteId, kid: key.kid }, encryptionKey),
    encryption_key_id: encryptionKey.id,
    state: 'active',
    activated_at: now,
    created_at: now,
  });
}

/** The row's private JWK: decrypted, or as stored when the row predates encryption. */
export async function privateJwkOf(row: StoredPrivateKey, keys: KeyRing): Promise<JWK> {
  const owner = { siteId: row.site_id, kid: row.kid };
  if (row.encryption_key_id !== null) return decryptPrivateJwk(String(row.private_jwk), owner, keys);
  try {
    return parseJsonColumn<JWK>(row.private_jwk);
  } catch {
    throw new SigningKeyUnreadableError(owner, undefined, 'is marked as stored before encryption but is not a JWK (the row was altered)');
  }
}

/**
 * Encrypts a key stored before encryption the first time it is used. The update names the row as still plaintext,
 * so of two instances doing it at once one writes and the other changes nothing.
 */
async function encryptPlaintextRow(db: Database, row: KeyRow, privateJwk: JWK, encryptionKey: KeyEncryptionKey): Promise<void> {
  const ciphertext = await encryptPrivateJwk(privateJwk, { siteId: row.site_id, kid: row.kid }, encryptionKey);
  await withTransaction(db, (trx) =>
    trx('signing_keys').where({ id: row.id }).whereNull('encryption_key_id').update({ private_jwk: ciphertext, encryption_key_id: encryptionKey.id }),
  );
}

async function keyFromRow(db: Database, row: KeyRow, keys: KeyRing): Promise<SigningKey> {
  const privateJwk = await privateJwkOf(row, keys);
  if (row.encryption_key_id === null) await encryptPlaintextRow(db, row, privateJwk, keys.current);
  return { kid: row.kid, alg: SIGNING_ALG, publicJwk: parseJsonColumn<JWK>(row.public_jwk), privateJwk };
}

/**
 * Makes a new active key for the site and retires the previous one. Runs in a transaction that locks the site row,
 * so two instances rotating at once leave exactly one active key.
 */
export async function rotateSigningKey(db: Database, siteId: number, keys: KeyRing = configuredKeyRing()): Promise<SigningKey> {
  const key = await newKey();
  await withTransaction(db, async (trx) => {
    await trx('sites').where({ id: siteId }).forUpdate().first();
    const now = new Date();
    await trx('signing_keys').where({ site_id: siteId, state: 'active' }).update({ state: 'retired', retired_at: now });
    await insertActiveKey(trx, siteId, key, keys.current, now);
  });
  return key;
}

/**
 * The site's active key, created on first use; keys live in the database so every instance signs with the same one.
 * On a multi-primary cluster the site-row lock is not certified, so two nodes creating the first key at the same
 * moment may both commit: both keys are then active and published, and every instance signs with the newest.
 * An active key that cannot be decrypted here is an error (SigningKeyUnreadableError), never a reason to make another.
 */
export async function activeSigningKey(db: Database, siteId: number, keys: KeyRing = configuredKeyRing()): Promise<SigningKey> {
  const row = await db<KeyRow>('signing_keys').where({ site_id: siteId, state: 'active' }).orderBy('id', 'desc').first();
  if (row) return keyFromRow(db, row, keys);
  return withTransaction(db, async (trx) => {
    await trx('sites').where({ id: siteId }).forUpdate().first();
    const existing = await trx<KeyRow>('signing_keys').where({ site_id: siteId, state: 'active' }).first();
    if (existing) return keyFromRow(trx, existing, keys);
    const key = await newKey();
    const now = new Date();
    await insertActiveKey(trx, siteId, key, keys.current, now);
    return key;
  });
}

/**
 * The public keys published at jwks_uri: the active key and keys retired within the grace period. Public halves only,
 * so publishing never needs a key-encryption key.
 */
export async function publishedJwks(db: Database, siteId: number): Promise<{ keys: JWK[] }> {
  const since = new Date(Date.now() - RETIRED_KEY_GRACE_MS);
  const rows: Array<Pick<KeyRow, 'public_jwk'>> = await db<KeyRow>('signing_keys')
    .select('public_jwk')
    .where({ site_id: siteId })
    .andWhere((where) => where.where({ state: 'active' }).orWhere('retired_at', '>', since))
    .orderBy('id', 'desc');
  return { keys: rows.map((row) => parseJsonColumn<JWK>(row.public_jwk)) };
}
