import { toDate } from '../../db/connection.js';
import { generateClientSecret, hashClientSecret } from '../../clients/clients.js';
import { sha256Hex } from '../../shared/random.js';
import type { OAuthClientInput } from '../document.js';
import type { ImportContext } from '../context.js';
import type { Row } from '../upsert.js';

interface StoredSecret {
  secret_hash: string | null;
  secret_rotated_at: unknown;
}

/**
 * secret_hash and secret_rotated_at: a public client has none; a given secret is stored hashed (the rotation time
 * stays when the hash is the same); without one, an existing secret is kept and a new confidential client gets a
 * generated one, reported once.
 */
function secretColumns(ctx: ImportContext, client: OAuthClientInput, stored: StoredSecret | undefined): Row {
  if (!client.confidential) return { secret_hash: null, secret_rotated_at: null };
  const keep = (hash: string): Row => ({ secret_hash: hash, secret_rotated_at: stored?.secret_hash === hash ? toDate(stored.secret_rotated_at) : ctx.now });
  if (client.clientSecret !== undefined) return keep(hashClientSecret(client.clientSecret));
  if (stored?.secret_hash) return keep(stored.secret_hash);
  const clientSecret = generateClientSecret();
  ctx.generatedClientSecrets.push({ clientId: client.clientId, clientSecret });
  return keep(hashClientSecret(clientSecret));
}

/** OAuth clients, keyed by (site, SHA-256 of client_id) like createClient stores them. */
export async function importOAuthClients(ctx: ImportContext): Promise<void> {
  for (const client of ctx.document.oauthClients ?? []) {
    const key = { site_id: ctx.siteId, client_id_hash: sha256Hex(client.clientId) };
    const stored: StoredSecret | undefined = await ctx.trx('oauth_clients').where(key).first('secret_hash', 'secret_rotated_at');
    const id = await ctx.save('oauth_clients', key, {
      client_id: client.clientId,
      name: client.name,
      audience: client.audience,
      confidential: client.confidential,
      token_endpoint_auth_method: client.confidential ? 'client_secret_post' : 'none',
      ...secretColumns(ctx, client, stored),
      redirect_uris: JSON.stringify(client.redirectUris),
      scopes: JSON.stringify(client.scopes),
      kind: client.kind ?? 'operator_created',
      reviewed: client.reviewed ?? true,
      created_by_user_id: ctx.users.optional(client.createdBy),
    });
    ctx.clients.set(client.clientId, id);
  }
}

/** The registration endpoint's allowlist, keyed by (site, client_name). */
export async function importVendorPlatforms(ctx: ImportContext): Promise<void> {
  for (const platform of ctx.document.vendorPlatforms ?? []) {
    await ctx.link('vendor_platforms', { site_id: ctx.siteId, client_name: platform.clientName }, { client_ref: ctx.clients.get(platform.client) });
  }
}
