import type { Middleware, ParameterizedContext } from 'koa';
import { clientAddressKey } from '../accounts/sign-in.js';
import type { OAuthClient } from '../clients/clients.js';
import type { Database } from '../db/connection.js';
import type { SiteState } from '../http/state.js';
import { AppError } from '../shared/errors.js';
import { LruCache } from '../shared/lru-cache.js';
import { readPresentedCredentials } from './client-authentication/presented.js';
import { addressBucket, countHit, TooManyRequestsError, type Limit } from './anonymous-limits.js';
import { readForm } from './parameters.js';

/**
 * Failure limits at the endpoints where clients authenticate (token, revocation, introspection) and at registration
 * (docs/oauth.md, "Limits on anonymous traffic"). A failure is counted against whoever failed:
 * - once the request has a valid client (a known client of the site; a confidential one authenticated), against that
 *   client at that address: one broken client behind a school's network address never refuses another client's
 *   valid refresh or code exchange, and nobody elsewhere can use a public client's client_id to lock it out
 *   everywhere;
 * - without a valid client (no or an unknown client_id, a wrong secret or assertion, a failure before the client was
 *   known), against the address. Past that limit only requests that still have no valid client are refused: a valid
 *   client from the same address is authenticated and served as usual.
 * A success is never counted and costs no statement. The counts are sliding windows in the database
 * (src/db/rate-limit.ts), shared by every instance.
 */

type Ctx = ParameterizedContext<SiteState>;

/** The valid client of each request still being answered, as the endpoint established it. */
const validClients = new WeakMap<Ctx, Pick<OAuthClient, 'ref' | 'clientId'>>();

/** Called by an endpoint once client authentication succeeded: from now on its failures are the client's. */
export function recordValidClient(ctx: Ctx, client: Pick<OAuthClient, 'ref' | 'clientId'>): void {
  validClients.set(ctx, client);
}

/** The client_id a request names (body, Basic header or assertion), read without any statement; undefined when it names none readable. */
function presentedClientId(ctx: Ctx): string | undefined {
  try {
    return readPresentedCredentials(readForm(ctx), ctx.get('authorization') || undefined).clientId;
  } catch {
    return undefined;
  }
}

/**
 * A failure that counts: a 4xx the client caused. A DPoP nonce challenge (RFC 9449 8) is a normal step of a valid
 * exchange, and a 429 is already a refusal.
 */
function isCountedFailure(error: unknown): error is AppError {
  return error instanceof AppError && error.status >= 400 && error.status < 500 && error.status !== 429 && error.code !== 'use_dpop_nonce';
}

/**
 * Failures at an endpoint as middleware, counted per valid client and address, else per address (see above). Past
 * the limit the failure becomes 429 `temporarily_unavailable` with Retry-After; this instance then keeps a note until
 * the count allows again: a request naming that client from that address is refused before any work, a request
 * from that address without a valid client is refused once it fails to show one, without counting. Another instance
 * learns it from the shared count at its next failure there.
 */
export function limitFailures(db: Database, kind: string, limit: Limit): Middleware<SiteState> {
  const blockedUntil = new LruCache<string, number>(10_000);
  const clientNote = (siteId: number, clientId: string, address: string) => `client ${siteId} ${address} ${clientId}`;
  const addressNote = (address: string) => `address ${address}`;
  const stillBlocked = (note: string): number | undefined => {
    const until = blockedUntil.get(note);
    return until !== undefined && until > Date.now() ? (until - Date.now()) / 1000 : undefined;
  };
  const clientRefusal = (seconds: number) => new TooManyRequestsError(`Too many failed requests from this client at this address; try again in ${Math.ceil(seconds)} seconds.`, seconds);
  const addressRefusal = (seconds: number) =>
    new TooManyRequestsError(`Too many failed requests without a valid client from this address; try again in ${Math.ceil(seconds)} seconds.`, seconds);

  const countFailure = async (bucket: string, note: string, refusal: (seconds: number) => TooManyRequestsError): Promise<TooManyRequestsError | null> => {
    const outcome = await countHit(db, bucket, limit);
    if (outcome.allowed) return null;
    blockedUntil.set(note, Date.now() + outcome.retryAfterSeconds * 1000);
    return refusal(outcome.retryAfterSeconds);
  };

  return async (ctx, next) => {
    const address = clientAddressKey(ctx.ip);
    const named = presentedClientId(ctx);
    const namedWait = named === undefined ? undefined : stillBlocked(clientNote(ctx.state.site.id, named, address));
    if (namedWait !== undefined) throw clientRefusal(namedWait);
    try {
      await next();
    } catch (error) {
      if (!isCountedFailure(error)) throw error;
      const client = validClients.get(ctx);
      if (client) throw (await countFailure(`${kind}:client:${client.ref}:${address}`, clientNote(ctx.state.site.id, client.clientId, address), clientRefusal)) ?? error;
      const addressWait = stillBlocked(addressNote(address));
      if (addressWait !== undefined) throw addressRefusal(addressWait);
      throw (await countFailure(addressBucket(kind, ctx.ip), addressNote(address), addressRefusal)) ?? error;
    } finally {
      validClients.delete(ctx);
    }
  };
}
