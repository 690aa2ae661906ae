import type { Knex } from 'knex';
import { firstDayOf } from '../deprecations/days.js';
import type { PruneRule } from './batches.js';

/** Short-lived records are kept a day past their expiry, so a late visitor is told "expired" rather than "unknown". */
export const EXPIRED_GRACE_MS = 24 * 60 * 60 * 1000;

export const PRUNE_TARGETS = ['rate_limit_counters', 'authorization_requests', 'sign_in_sessions', 'token_pairs', 'authorization_codes', 'api_usage', 'metadata_document_clients', 'used_jtis', 'logout_deliveries'] as const;
export type PruneTarget = (typeof PRUNE_TARGETS)[number];

export interface PruneCutoffs {
  /** Finished rate-limit windows. */
  now: Date;
  /** now − EXPIRED_GRACE_MS: authorization requests, sign-in sessions, unused codes. */
  grace: Date;
  /** now − retention: token pairs, used codes, metadata-document clients. */
  retention: Date;
  /** The first UTC day of usage counts kept (YYYY-MM-DD). */
  firstUsageDay: string;
}

export function cutoffsAt(now: Date, retentionDays: number, usageRetentionDays: number): PruneCutoffs {
  return {
    now,
    grace: new Date(now.getTime() - EXPIRED_GRACE_MS),
    retention: new Date(now.getTime() - retentionDays * 24 * 60 * 60 * 1000),
    firstUsageDay: firstDayOf(usageRetentionDays, now),
  };
}

/** The primary key of api_usage (migration 0020). */
const USAGE_KEY = ['site_id', 'day', 'api', 'element', 'client_ref'] as const;

/** `NOT EXISTS (SELECT 1 FROM table WHERE table.column = outer.outerColumn)` */
function noRowIn(query: Knex.QueryBuilder, table: string, column: string, outer: string): void {
  query.whereNotExists((sub) => sub.select('*').from(table).whereRaw('?? = ??', [`${table}.${column}`, outer]));
}

/**
 * What the prune deletes, in order (docs/housekeeping.md). Order matters: token pairs go before the codes of their
 * grants and before the metadata-document clients they belong to, so those can be found unreferenced in the same run.
 */
export function pruneRules(cutoffs: PruneCutoffs): Array<PruneRule & { target: PruneTarget }> {
  const { now, grace, retention, firstUsageDay } = cutoffs;
  return [
    // Windows that no longer weigh in the sliding count (expired one window after their own) count nothing any more. A
    // DELETE names buckets (the primary key's leading column) and takes each one's expired windows: rarely more than
    // one, as a bucket's first hit of a window drops the others.
    { target: 'rate_limit_counters', table: 'rate_limit_counters', key: 'bucket', mode: 'drain', recheck: true, where: (q) => q.where('expires_at', '<=', now) },
    { target: 'authorization_requests', table: 'authorization_requests', key: 'id', mode: 'drain', where: (q) => q.where('expires_at', '<=', grace) },
    { target: 'sign_in_sessions', table: 'sign_in_sessions', key: 'id', mode: 'drain', where: (q) => q.where('expires_at', '<=', grace) },
    { target: 'sign_in_sessions', table: 'sign_in_sessions', key: 'id', mode: 'drain', where: (q) => q.where('revoked_at', '<=', grace) },
    // Revoked and expired pairs stay for the retention: a rotated refresh token presented again is reuse and ends its
    // grant (RFC 9700 4.14.2), which needs the old row. After that the token is simply unknown, which is also refused.
    { target: 'token_pairs', table: 'token_pairs', key: 'id', mode: 'drain', where: (q) => q.where('revoked_at', '<=', retention) },
    { target: 'token_pairs', table: 'token_pairs', key: 'id', mode: 'drain', where: (q) => q.where('refresh_expires_at', '<=', retention) },
    { target: 'token_pairs', table: 'token_pairs', key: 'id', mode: 'drain', where: (q) => q.whereNull('refresh_expires_at').andWhere('access_expires_at', '<=', retention) },
    // An unused code issued nothing: past its expiry (and the grace) there is nothing left to detect.
    { target: 'authorization_codes', table: 'authorization_codes', key: 'id', mode: 'drain', where: (q) => q.whereNull('consumed_at').andWhere('expires_at', '<=', grace) },
    // A used code is what detects a replay, which revokes its grant (RFC 6749 4.1.2): kept for the retention and for
    // as long as any pair of its grant is still stored.
    {
      target: 'authorization_codes',
      table: 'authorization_codes',
      key: 'id',
      mode: 'cursor',
      where: (q) => {
        q.whereNotNull('consumed_at').andWhere('expires_at', '<=', retention);
        noRowIn(q, 'token_pairs', 'grant_id', 'authorization_codes.grant_id');
      },
    },
    // Daily usage counts are reported over at most their retention (SCHOOLGATE_USAGE_RETENTION_DAYS). A batch takes
    // rows from the range of old days in the day index and names them by the whole primary key: a day of every site
    // can be many thousand rows, so never a day per DELETE.
    { target: 'api_usage', table: 'api_usage', key: USAGE_KEY, mode: 'drain', where: (q) => q.where('day', '<', firstUsageDay) },
    // A metadata-document client is the cached copy of its document; dropping it only means the next use fetches the
    // document again. Kept while an operator's review rests on it or anything refers to it (deleting a client would
    // cascade to its codes, requests and pairs).
    {
      target: 'metadata_document_clients',
      table: 'oauth_clients',
      key: 'id',
      mode: 'cursor',
      // A stale client is renewed (and then used) when its document is fetched again: check again when deleting.
      recheck: true,
      where: (q) => {
        q.where('kind', 'metadata_document').andWhere('reviewed', false).andWhere('metadata_expires_at', '<=', retention);
        noRowIn(q, 'token_pairs', 'client_ref', 'oauth_clients.id');
        noRowIn(q, 'authorization_codes', 'client_ref', 'oauth_clients.id');
        noRowIn(q, 'authorization_requests', 'client_ref', 'oauth_clients.id');
        noRowIn(q, 'vendor_platforms', 'client_ref', 'oauth_clients.id');
        noRowIn(q, 'storage_uploads', 'created_by_client_ref', 'oauth_clients.id');
      },
    },
    // A deleted client's counts (no foreign key: 0 is the anonymous caller, and a cascade would make deleting a client
    // wait for all its rows), after the metadata-document clients so that theirs go in the same run. The clients that
    // have counts are walked through the client_ref index (migration 0022), and a gone one's rows drained.
    { target: 'api_usage', table: 'api_usage', key: USAGE_KEY, mode: 'orphans', orphans: { column: 'client_ref', parent: 'oauth_clients', above: 0 }, where: () => undefined },
    // A used jti blocks replays only while its assertion or proof could still be accepted; past expires_at the
    // expiry refuses it anyway. A DELETE names rows by the whole key (purpose, jti_hash): a hash alone is no index.
    { target: 'used_jtis', table: 'used_jtis', key: ['purpose', 'jti_hash'], mode: 'drain', where: (q) => q.where('expires_at', '<=', now) },
    // Back-channel logout notices: kept for the retention once delivered or abandoned, for operators to see what was
    // sent; a pending notice is never pruned (it is abandoned after its last retry, a few hours at most).
    { target: 'logout_deliveries', table: 'logout_deliveries', key: 'id', mode: 'drain', where: (q) => q.where('delivered_at', '<=', retention) },
    { target: 'logout_deliveries', table: 'logout_deliveries', key: 'id', mode: 'drain', where: (q) => q.where('abandoned_at', '<=', retention) },
  ];
}
