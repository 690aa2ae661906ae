import type { Queryable } from '../db/queries.js';
import { isUniqueViolation } from '../db/queries.js';
import { isTransactionConflict } from '../shared/failure.js';
import { sha256Hex } from '../shared/random.js';

/** What a jti is single-use for: client assertions (RFC 7523 3 item 7) and DPoP proofs (RFC 9449 11.1). */
export type JtiPurpose = 'client_assertion' | 'dpop';

/** A Galera certification failure of the one insert is retried a few times; a duplicate key never is. */
const ATTEMPTS = 4;

/** Key of a jti in used_jtis: one hash of issuer and jti, so a jti of any length fits and issuers never collide. */
export function jtiHash(issuer: string, jti: string): string {
  return sha256Hex(JSON.stringify([issuer, jti]));
}

/**
 * Records a jti as used, shared by every instance through the used_jtis table: true when this is its first use,
 * false when the row is already there (a replay). The primary key (purpose, jti_hash) decides, so two instances
 * racing on one jti cannot both win. `expiresAt` is when the jti could no longer be accepted anyway (the token's
 * exp, or the end of the proof's iat window); the prune deletes the row after it.
 */
export async function consumeJti(db: Queryable, purpose: JtiPurpose, issuer: string, jti: string, expiresAt: Date): Promise<boolean> {
  const row = { purpose, jti_hash: jtiHash(issuer, jti), expires_at: expiresAt };
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db('used_jtis').insert(row);
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      if (!isTransactionConflict(error) || attempt >= ATTEMPTS) throw error;
    }
  }
}
