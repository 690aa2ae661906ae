import type { Database } from '../../db/connection.js';
import type { TokenPair } from './store.js';

/**
 * Connected apps show when an application last used its grant, to the hour: a presented access token rewrites its
 * pair's last_used_at only when the value read with the token is missing or at least this old, so a busy client
 * costs one write per pair per hour, not one per request.
 */
export const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/** True when the pair's last use, as read with the token, is missing or older than the resolution. */
export function lastUseIsStale(pair: Pick<TokenPair, 'lastUsedAt'>, now: Date): boolean {
  return pair.lastUsedAt === null || now.getTime() - pair.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;
}

/**
 * Moves last_used_at forward when it is stale. The condition is repeated in the UPDATE so that several instances
 * answering the same token at once write it once between them (the others match no row).
 */
export async function recordLastUse(db: Database, pair: Pick<TokenPair, 'id' | 'lastUsedAt'>, now: Date): Promise<void> {
  if (!lastUseIsStale(pair, now)) return;
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  await db('token_pairs')
    .where({ id: pair.id })
    .andWhere((stale) => stale.whereNull('last_used_at').orWhere('last_used_at', '<=', staleBefore))
    .update({ last_used_at: now });
}
