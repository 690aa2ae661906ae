import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';
import type { KeyRing } from './key-ring.js';
import { encryptPrivateJwk, SigningKeyUnreadableError } from './private-key-encryption.js';
import { privateJwkOf, type StoredPrivateKey } from './signing-keys.js';

export const DEFAULT_REENCRYPTION_BATCH_SIZE = 100;

/** Which key-encryption key holds how many private signing keys, as this process sees its keys. */
export interface EncryptionKeyCount {
  /** null: keys stored before encryption. */
  encryptionKeyId: string | null;
  role: 'current' | 'previous' | 'not configured' | 'plaintext';
  keys: number;
}

export interface UnreadableKey {
  site: string;
  kid: string;
  state: string;
  encryptionKeyId: string | null;
  message: string;
}

export interface ReencryptionReport {
  dryRun: boolean;
  currentKeyId: string;
  /** Keys that were not under the current key when the run began. */
  pending: number;
  /** Keys re-encrypted under the current key (with dryRun: that would be). */
  reencrypted: number;
  /** Keys no configured key decrypts; they keep their ciphertext. */
  unreadable: UnreadableKey[];
  /** Every key by the key-encryption key holding it, after the run. */
  keys: EncryptionKeyCount[];
  batchSize: number;
  durationMs: number;
}

export interface ReencryptionOptions {
  batchSize?: number;
  dryRun?: boolean;
  /** Called after each batch with the keys handled so far out of `pending`. */
  onProgress?: (progress: { handled: number; reencrypted: number; pending: number }) => void;
}

interface Row extends StoredPrivateKey {
  id: number;
  state: string;
}

interface BatchResult {
  lastId: number | undefined;
  reencrypted: number;
  unreadable: Array<{ row: Row; error: SigningKeyUnreadableError }>;
}

function notUnderCurrentKey(currentKeyId: string) {
  return (where: Knex.QueryBuilder) => where.whereNull('encryption_key_id').orWhereNot('encryption_key_id', currentKeyId);
}

async function countPending(db: Database, currentKeyId: string): Promise<number> {
  const [row] = await db('signing_keys').where(notUnderCurrentKey(currentKeyId)).count({ n: '*' });
  return Number(row?.n ?? 0);
}

/** Every key by the key-encryption key that holds it. */
export async function encryptionKeyCounts(db: Database, keys: KeyRing): Promise<EncryptionKeyCount[]> {
  const rows = (await db('signing_keys').select('encryption_key_id').count({ n: '*' }).groupBy('encryption_key_id').orderBy('encryption_key_id')) as Array<{ encryption_key_id: string | null; n: number | string }>;
  return rows.map((row) => ({
    encryptionKeyId: row.encryption_key_id,
    role: row.encryption_key_id === null ? 'plaintext' : row.encryption_key_id === keys.current.id ? 'current' : keys.byId.has(row.encryption_key_id) ? 'previous' : 'not configured',
    keys: Number(row.n),
  }));
}

/**
 * One batch in one short transaction: the next rows (by id) not under the current key, locked, each decrypted with
 * whichever key of the ring it names and written back under the current key. A row no key decrypts is left as it is
 * and reported; the walk goes on past it.
 */
async function reencryptBatch(db: Database, keys: KeyRing, afterId: number, batchSize: number, dryRun: boolean): Promise<BatchResult> {
  return withTransaction(db, async (trx) => {
    const query = trx<Row>('signing_keys')
      .select('id', 'site_id', 'kid', 'state', 'private_jwk', 'encryption_key_id')
      .where('id', '>', afterId)
      .andWhere(notUnderCurrentKey(keys.current.id))
      .orderBy('id')
      .limit(batchSize);
    const rows: Row[] = dryRun ? await query : await query.forUpdate();
    const result: BatchResult = { lastId: rows.at(-1)?.id, reencrypted: 0, unreadable: [] };
    for (const row of rows) {
      let privateJwk;
      try {
        privateJwk = await privateJwkOf(row, keys);
      } catch (error) {
        if (!(error instanceof SigningKeyUnreadableError)) throw error;
        result.unreadable.push({ row, error });
        continue;
      }
      if (!dryRun) {
        const ciphertext = await encryptPrivateJwk(privateJwk, { siteId: row.site_id, kid: row.kid }, keys.current);
        await trx('signing_keys').where({ id: row.id }).update({ private_jwk: ciphertext, encryption_key_id: keys.current.id });
      }
      result.reencrypted += 1;
    }
    return result;
  });
}

async function describeUnreadable(db: Database, unreadable: BatchResult['unreadable']): Promise<UnreadableKey[]> {
  if (unreadable.length === 0) return [];
  const sites: Array<{ id: number; origin: string }> = await db('sites').select('id', 'origin').whereIn('id', [...new Set(unreadable.map(({ row }) => row.site_id))]);
  const origins = new Map(sites.map((site) => [site.id, site.origin]));
  return unreadable.map(({ row, error }) => ({
    site: origins.get(row.site_id) ?? `site ${row.site_id}`,
    kid: row.kid,
    state: row.state,
    encryptionKeyId: row.encryption_key_id,
    message: error.message,
  }));
}

/**
 * Re-encrypts every private signing key under the current key-encryption key: the last step of a rotation, and the
 * way to encrypt keys stored before encryption all at once. Batches are separate transactions, so servers keep
 * signing meanwhile; a run that stops half-way leaves every key readable, and running again (idempotent) finishes it.
 */
export async function reencryptSigningKeys(db: Database, keys: KeyRing, options: ReencryptionOptions = {}): Promise<ReencryptionReport> {
  const started = Date.now();
  const batchSize = options.batchSize ?? DEFAULT_REENCRYPTION_BATCH_SIZE;
  const dryRun = options.dryRun ?? false;
  const pending = await countPending(db, keys.current.id);
  let afterId = 0;
  let reencrypted = 0;
  const unreadable: BatchResult['unreadable'] = [];
  for (;;) {
    const batch = await reencryptBatch(db, keys, afterId, batchSize, dryRun);
    if (batch.lastId === undefined) break;
    afterId = batch.lastId;
    reencrypted += batch.reencrypted;
    unreadable.push(...batch.unreadable);
    options.onProgress?.({ handled: reencrypted + unreadable.length, reencrypted, pending });
  }
  return {
    dryRun,
    currentKeyId: keys.current.id,
    pending,
    reencrypted,
    unreadable: await describeUnreadable(db, unreadable),
    keys: await encryptionKeyCounts(db, keys),
    batchSize,
    durationMs: Date.now() - started,
  };
}
