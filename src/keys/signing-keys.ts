import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { parseJsonColumn, type Database } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';

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

interface KeyRow {
  site_id: number;
  state: 'active' | 'retired';
  retired_at: Date | null;
  kid: string;
  public_jwk: unknown;
  private_jwk: unknown;
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

async function insertActiveKey(trx: Database, siteId: number, key: SigningKey, now: Date): Promise<void> {
  await trx('signing_keys').insert({
    site_id: siteId,
    kid: key.kid,
    alg: key.alg,
    public_jwk: JSON.stringify(key.publicJwk),
    private_jwk: JSON.stringify(key.privateJwk),
    state: 'active',
    activated_at: now,
    created_at: now,
  });
}

function keyFromRow(row: KeyRow): SigningKey {
  return { kid: row.kid, alg: SIGNING_ALG, publicJwk: parseJsonColumn<JWK>(row.public_jwk), privateJwk: parseJsonColumn<JWK>(row.private_jwk) };
}

/**
 * Makes a new active key for the site and retires the previous one. Runs in a transaction that locks the site row,
 * so two instances rotating at once leave exactly one active key.
 */
export async function rotateSigningKey(db: Database, siteId: number): Promise<SigningKey> {
  const key = await newKey();
  await withTransaction(db, async (trx) => {
    await trx('sites').where({ id: siteId }).forUpdate().first();
    const now = new Date();
    await trx('signing_keys').where({ site_id: siteId, state: 'active' }).update({ state: 'retired', retired_at: now });
    await insertActiveKey(trx, siteId, key, now);
  });
  return key;
}

/**
 * The site's active key, created on first use; keys live in the database so every instance signs with the same one.
 * On a multi-primary cluster the site-row lock is not certified, so two nodes creating the first key at the same
 * moment may both commit: both keys are then active and published, and every instance signs with the newest.
 */
export async function activeSigningKey(db: Database, siteId: number): Promise<SigningKey> {
  const row = await db<KeyRow>('signing_keys').where({ site_id: siteId, state: 'active' }).orderBy('id', 'desc').first();
  if (row) return keyFromRow(row);
  return withTransaction(db, async (trx) => {
    await trx('sites').where({ id: siteId }).forUpdate().first();
    const existing = await trx<KeyRow>('signing_keys').where({ site_id: siteId, state: 'active' }).first();
    if (existing) return keyFromRow(existing);
    const key = await newKey();
    const now = new Date();
    await insertActiveKey(trx, siteId, key, now);
    return key;
  });
}

/** The public keys published at jwks_uri: the active key and keys retired within the grace period. */
export async function publishedJwks(db: Database, siteId: number): Promise<{ keys: JWK[] }> {
  const since = new Date(Date.now() - RETIRED_KEY_GRACE_MS);
  const rows = await db<KeyRow>('signing_keys')
    .where({ site_id: siteId })
    .andWhere((where) => where.where({ state: 'active' }).orWhere('retired_at', '>', since))
    .orderBy('id', 'desc');
  return { keys: rows.map((row) => keyFromRow(row).publicJwk) };
}
