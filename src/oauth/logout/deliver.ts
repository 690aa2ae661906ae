import type { Database } from '../../db/connection.js';
import { parseJsonColumn } from '../../db/connection.js';
import type { Metrics } from '../../metrics/metrics.js';
import { metadataDocumentHosts } from '../../sites/registration-policy.js';
import { signLogoutToken } from './logout-token.js';
import type { LogoutSubject } from '../../grants/logout-outbox.js';
import { postLogoutToken, type PostOutcome } from './post-logout-token.js';

/** Attempts before a notice is abandoned: with the backoff below, retries span about an hour. */
export const MAX_DELIVERY_ATTEMPTS = 8;
/** The first retry waits 30 s; each later one twice as long as the one before. */
export const FIRST_RETRY_SECONDS = 30;
/** A claimed row is not due again for this long, so an instance that died mid-attempt delays it, never loses it. */
const CLAIM_MS = 60_000;
const BATCH = 20;

export type DeliveryOutcome = 'delivered' | 'retry' | 'abandoned';

export interface DeliveryOptions {
  now?: Date;
  timeoutMs?: number;
  /** At most this many due notices in one run. */
  limit?: number;
  metrics?: Metrics;
}

interface DueRow {
  id: number;
  site_id: number;
  backchannel_logout_uri: string;
  logout_token: unknown;
  attempts: number;
  origin: string;
  client_id: string;
}

/** The wait after the `attempts`-th failed attempt: 30 s, 1 min, 2 min, … */
export function retryDelayMs(attempts: number): number {
  return FIRST_RETRY_SECONDS * 1000 * 2 ** Math.max(0, attempts - 1);
}

/**
 * One run of the outbox (OIDC Back-Channel Logout 1.0 2.5): every due notice is claimed by a compare-and-set on its
 * attempt count, so instances running at once never post one attempt twice and no lease is needed; then signed
 * afresh, POSTed, and marked delivered, scheduled again with exponential backoff, or abandoned after
 * MAX_DELIVERY_ATTEMPTS. Answers the outcome of each notice tried.
 */
export async function deliverDueLogouts(db: Database, options: DeliveryOptions = {}): Promise<Map<number, DeliveryOutcome>> {
  const now = options.now ?? new Date();
  const due: DueRow[] = await db('logout_deliveries')
    .join('sites', 'sites.id', 'logout_deliveries.site_id')
    .join('oauth_clients', 'oauth_clients.id', 'logout_deliveries.client_ref')
    .where('logout_deliveries.next_attempt_at', '<=', now)
    .whereNull('logout_deliveries.delivered_at')
    .whereNull('logout_deliveries.abandoned_at')
    .orderBy('logout_deliveries.next_attempt_at')
    .limit(options.limit ?? BATCH)
    .select(
      'logout_deliveries.id',
      'logout_deliveries.site_id',
      'logout_deliveries.backchannel_logout_uri',
      'logout_deliveries.logout_token',
      'logout_deliveries.attempts',
      'sites.origin',
      'oauth_clients.client_id',
    );
  const outcomes = new Map<number, DeliveryOutcome>();
  const allowlists = new Map<number, Promise<string[]>>();
  await Promise.all(
    due.map(async (row) => {
      if (!(await claim(db, row, now))) return;
      let allowlist = allowlists.get(row.site_id);
      if (!allowlist) allowlists.set(row.site_id, (allowlist = metadataDocumentHosts(db, row.site_id)));
      const outcome = await attempt(db, row, await allowlist, options, now);
      options.metrics?.logoutDeliveries.inc({ outcome });
      outcomes.set(Number(row.id), outcome);
    }),
  );
  return outcomes;
}

async function claim(db: Database, row: DueRow, now: Date): Promise<boolean> {
  const claimed = await db('logout_deliveries')
    .where({ id: row.id, attempts: row.attempts })
    .whereNull('delivered_at')
    .whereNull('abandoned_at')
    .update({ attempts: row.attempts + 1, next_attempt_at: new Date(now.getTime() + CLAIM_MS) });
  return claimed === 1;
}

async function attempt(db: Database, row: DueRow, allowlist: readonly string[], options: DeliveryOptions, now: Date): Promise<DeliveryOutcome> {
  const attempts = row.attempts + 1;
  let outcome: PostOutcome;
  try {
    const subject = parseJsonColumn<LogoutSubject>(row.logout_token);
    const token = await signLogoutToken(db, row.site_id, { issuer: row.origin, clientId: row.client_id, subject });
    const host = hostnameOf(row.backchannel_logout_uri);
    outcome = await postLogoutToken(row.backchannel_logout_uri, token, { allowPrivateAddresses: host !== null && allowlist.includes(host), timeoutMs: options.timeoutMs });
  } catch (error) {
    outcome = { delivered: false, error: error instanceof Error ? error.message : String(error) };
  }
  const finishedAt = new Date();
  if (outcome.delivered) {
    await db('logout_deliveries').where({ id: row.id }).update({ delivered_at: finishedAt, last_error: null });
    return 'delivered';
  }
  const lastError = outcome.error.slice(0, 512);
  if (attempts >= MAX_DELIVERY_ATTEMPTS) {
    await db('logout_deliveries').where({ id: row.id }).update({ abandoned_at: finishedAt, last_error: lastError });
    return 'abandoned';
  }
  await db('logout_deliveries').where({ id: row.id }).update({ next_attempt_at: new Date(now.getTime() + retryDelayMs(attempts)), last_error: lastError });
  return 'retry';
}

function hostnameOf(uri: string): string | null {
  try {
    return new URL(uri).hostname.toLowerCase();
  } catch {
    return null;
  }
}
