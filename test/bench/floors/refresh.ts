import { createHash, randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Knex } from 'knex';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const ACCESS_SECONDS = 7200;
const REFRESH_SECONDS = 30 * 24 * 3600;

/**
 * Floor D: the refresh grant by hand. One statement reads the pair with its client, site and the member's roles; one
 * short transaction locks the pair and its parent, inserts the successor, and in one UPDATE by primary key points the
 * pair at it, retires the parent and supersedes the previous unused successor. The answer has the product's shape.
 */
export function mountRefreshFloor(router: Router, db: Knex): void {
  const variant = process.env.SCHOOLGATE_VARIANT ?? 'A';
  router.post('/floor/token', async (ctx) => {
    const form = new URLSearchParams(await readBody(ctx.req));
    const rows: Array<Record<string, unknown>> = await db('token_pairs as t')
      .join('oauth_clients as c', 'c.id', 't.client_ref')
      .join('sites as s', 's.id', 't.site_id')
      .leftJoin('site_roles as r', (on) => on.on('r.site_id', 't.site_id').andOn('r.user_id', 't.user_id'))
      .where('t.refresh_token_hash', sha256(form.get('refresh_token') ?? ''))
      .select('t.*', 'c.client_id', 'c.audience', 's.subdomain', 'r.role');
    const pair = rows[0];
    if (!pair || pair.client_id !== form.get('client_id') || pair.revoked_at !== null || rows.every((row) => row.role === null)) {
      ctx.status = 400;
      ctx.body = { error: 'invalid_grant' };
      return;
    }
    const now = new Date();
    const access = `sga_${randomBytes(32).toString('base64url')}`;
    const refresh = `sgr_${randomBytes(32).toString('base64url')}`;
    const pairId = Number(pair.id);
    const parentPairId = pair.parent_pair_id === null ? null : Number(pair.parent_pair_id);
    await db.transaction(async (trx) => {
      const locked: Array<Record<string, unknown>> = await trx('token_pairs')
        .whereIn('id', parentPairId === null ? [pairId] : [parentPairId, pairId])
        .orderBy('id')
        .forUpdate()
        .select('id', 'revoked_at', 'successor_pair_id', 'rotation_counter');
      const current = locked.find((row) => Number(row.id) === pairId);
      if (!current || current.revoked_at !== null) throw new Error('revoked meanwhile');
      const parent = locked.find((row) => Number(row.id) === parentPairId);
      const [id] = await trx('token_pairs').insert({
        grant_id: pair.grant_id,
        site_id: pair.site_id,
        client_ref: pair.client_ref,
        user_id: pair.user_id,
        access_token_hash: sha256(access),
        refresh_token_hash: sha256(refresh),
        scope: pair.scope,
        resource: pair.resource,
        school_id: pair.school_id,
        access_expires_at: new Date(now.getTime() + ACCESS_SECONDS * 1000),
        refresh_expires_at: new Date(now.getTime() + REFRESH_SECONDS * 1000),
        auth_time: pair.auth_time,
        parent_pair_id: pairId,
        created_at: now,
      });
      const parentId = parent && parent.revoked_at === null && Number(parent.successor_pair_id) === pairId ? Number(parent.id) : 0;
      const retired = [parentId, Number(current.successor_pair_id ?? 0)].filter((value) => value !== 0);
      await trx('token_pairs')
        .whereIn('id', [pairId, ...retired])
        .update({
          successor_pair_id: trx.raw('CASE WHEN id = ? THEN ? ELSE successor_pair_id END', [pairId, Number(id)]),
          rotation_counter: trx.raw('CASE WHEN id = ? THEN ? ELSE rotation_counter END', [pairId, Number(current.rotation_counter) + 1]),
          revoked_reason: trx.raw("CASE WHEN id = ? OR revoked_at IS NOT NULL THEN revoked_reason WHEN id = ? THEN 'rotated' ELSE 'superseded' END", [pairId, parentId]),
          revoked_at: trx.raw('CASE WHEN id = ? OR revoked_at IS NOT NULL THEN revoked_at ELSE ? END', [pairId, now]),
        });
    });
    const body: Record<string, unknown> = { access_token: access, token_type: 'Bearer', expires_in: ACCESS_SECONDS, refresh_token: refresh, scope: pair.scope };
    if (variant === 'A' && pair.audience === 'member' && pair.school_id !== null) {
      body.school_id = pair.school_id;
      body.school_subdomain = pair.subdomain;
      body.created_at = Math.floor(now.getTime() / 1000);
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });
}

function readBody(request: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}
