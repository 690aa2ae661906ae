import { toDate } from '../../db/connection.js';
import { clientSecretMatches, generateClientSecret, hashClientSecret, isLegacyClientSecretHash } from '../../clients/client-secrets.js';
import { sha256Hex } from '../../shared/random.js';
import type { OAuthClientInput } from '../document.js';
import type { ImportContext } from '../context.js';
import type { Row } from '../upsert.js';

interface StoredSecret {
  secret_hash: string | null;
  secret_rotated_at: unknown;
}

/**
 * secret_hash and secret_rotated_at: a public client has none. A given secret that the stored hash verifies keeps the
 * stored hash and rotation time (salted hashes of one secret differ, so the secret is verified, not the hash compared;
 * a legacy SHA-256 hash is replaced, the time kept); a different one is hashed and rotates. Without one, an existing
 * secret is kept and a new confidential client gets a generated one, reported once.
 */
async function secretColumns(ctx: ImportContext, client: OAuthClientInput, stored: StoredSecret | undefined): Promise<Row> {
  if (!client.confidential) return { secret_hash: null, secret_rotated_at: null };
  const storedHash = stored?.secret_hash ?? null;
  const kept = (hash: string): Row => ({ secret_hash: hash, secret_rotated_at: toDate(stored?.secret_rotated_at) });
  if (client.clientSecret !== undefined) {
    if (storedHash === null || !(await clientSecretMatches(client.clientSecret, storedHash))) {
      return { secret_hash: await hashClientSecret(client.clientSecret), secret_rotated_at: ctx.now };
    }
    return kept(isLegacyClientSecretHash(storedHash) ? await hashClientSecret(client.clientSecret) : storedHash);
  }
  if (storedHash !== null) return kept(storedHash);
  const clientSecret = generateClientSecret();
  ctx.generatedClientSecrets.push({ clientId: client.clientId, clientSecret });
  return { secret_hash: await hashClientSecret(clientSecret), secret_rotated_at: ctx.now };
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
      ...(await secretColumns(ctx, client, stored)),
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
