import { mintToken, tokenKey } from '../../../src/oauth/tokens/token-keys.js';
import { answer, type Floor } from './answer.js';
import { siteOf } from './site.js';
import { statementOf } from './statements.js';

const ACCESS_SECONDS = 7200;
const REFRESH_SECONDS = 30 * 24 * 3600;
const variant = process.env.SCHOOLGATE_VARIANT ?? 'A';

/** The INSERT's values in the order of its column list, taken from the product's text (knex orders the columns). */
function insertValues(sql: string, row: Record<string, unknown>): unknown[] {
  const columns = /\(([^)]*)\)\s+values/i.exec(sql)?.[1]?.split(',') ?? [];
  return columns.map((quoted) => {
    const column = quoted.trim().replace(/[`"]/g, '');
    if (!(column in row)) throw new Error(`the product inserts a token pair's ${column}, which the floor does not know`);
    return row[column];
  });
}

/**
 * Floor D, the refresh grant of a public client (RFC 6749 6): the product's statements in the product's order. One
 * read of the pair with its client, owner and roles; then one short transaction that locks the pair (and its parent),
 * inserts the successor, and in one UPDATE by primary key points the pair at it, retires the parent and supersedes
 * the previous unused successor. The answer has the product's shape.
 */
export const refreshFloor: Floor = async ({ body, store, book }) => {
  const form = new URLSearchParams(body);
  const site = await siteOf(store, book);
  const tokenValues = [tokenKey(form.get('refresh_token') ?? '')];
  const rows = await store.all(statementOf(book, 'refresh.pair', tokenValues), tokenValues);
  const pair = rows[0];
  if (!site || !pair || pair.site_id !== site.id || pair.client__client_id !== form.get('client_id') || pair.revoked_at !== null || rows.every((row) => row.role === null)) {
    return answer(400, { error: 'invalid_grant' });
  }
  const now = new Date();
  const access = mintToken('sga_', now);
  const refresh = mintToken('sgr_', now);
  const pairId = Number(pair.id);
  const parentPairId = pair.parent_pair_id === null ? null : Number(pair.parent_pair_id);
  const rotated = await store.transaction(statementOf(book, 'refresh.begin', []), statementOf(book, 'refresh.commit', []), async (tx) => {
    const ids = parentPairId === null ? [pairId] : [parentPairId, pairId];
    const locked = await tx.all(statementOf(book, 'refresh.lock', ids), ids);
    const current = locked.find((row) => Number(row.id) === pairId);
    if (!current || current.revoked_at !== null) return false;
    const parent = locked.find((row) => Number(row.id) === parentPairId);
    const values = insertValues(book.sql['refresh.insert'] ?? '', {
      grant_id: pair.grant_id,
      site_id: pair.site_id,
      client_ref: pair.client_ref,
      user_id: pair.user_id,
      access_token_hash: tokenKey(access),
      refresh_token_hash: tokenKey(refresh),
      scope: pair.scope,
      resource: pair.resource,
      school_id: pair.school_id,
      access_expires_at: new Date(now.getTime() + ACCESS_SECONDS * 1000),
      refresh_expires_at: new Date(now.getTime() + REFRESH_SECONDS * 1000),
      auth_time: pair.auth_time,
      parent_pair_id: pairId,
      sid: pair.sid,
      dpop_jkt: null,
      last_used_at: now,
      created_at: now,
    });
    const { insertId } = await tx.run(statementOf(book, 'refresh.insert', values), values);
    const counter = Number(current.rotation_counter) + 1;
    const receivedParentId = parent && parent.revoked_at === null && Number(parent.successor_pair_id) === pairId ? Number(parent.id) : null;
    const supersededId = current.successor_pair_id === null ? null : Number(current.successor_pair_id);
    const retired = [receivedParentId, supersededId].filter((id): id is number => id !== null);
    if (retired.length === 0) {
      const update = [insertId, counter, pairId];
      await tx.run(statementOf(book, 'refresh.update-first', update), update);
    } else {
      const update = [pairId, insertId, pairId, counter, pairId, receivedParentId ?? 0, pairId, now, pairId, ...retired];
      await tx.run(statementOf(book, 'refresh.update', update), update);
    }
    return true;
  });
  if (!rotated) return answer(400, { error: 'invalid_grant' });
  const token: Record<string, unknown> = { access_token: access, token_type: 'Bearer', expires_in: ACCESS_SECONDS, refresh_token: refresh, scope: pair.scope };
  if (variant === 'A' && pair.client__audience === 'member' && pair.school_id !== null) {
    token.school_id = pair.school_id;
    token.school_subdomain = site.subdomain;
    token.created_at = Math.floor(now.getTime() / 1000);
  }
  return answer(200, token);
};
