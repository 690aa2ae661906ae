import type { OAuthClient } from '../../clients/clients.js';
import type { Database } from '../../db/connection.js';
import type { Site } from '../../sites/sites.js';
import { InvalidDpopProofError, InvalidGrantError, UseDpopNonceError } from '../errors.js';
import { consumeJti } from '../single-use-jti.js';
import { DpopProofRefusal, verifyProof, type VerifiedProof } from './proof.js';
import { nonceChecker, singleProof, type DpopRequest } from './request.js';

/**
 * DPoP at the token endpoint (RFC 9449 5), in two steps around client authentication: the proof's stateless checks
 * first (so a nonce challenge costs the client nothing, not even a client assertion's jti), then the client's
 * requirement and the proof's single-use jti.
 */

/** The token request's proof after RFC 9449 4.3's checks (no `ath` here), or null when none came. */
export async function readTokenRequestProof(site: Site, request: DpopRequest): Promise<VerifiedProof | null> {
  try {
    const proof = singleProof(request);
    if (proof === undefined) return null;
    return await verifyProof(proof, { method: request.method, url: request.url, checkNonce: nonceChecker(site, request) });
  } catch (error) {
    if (!(error instanceof DpopProofRefusal)) throw error;
    throw error.errorCode === 'use_dpop_nonce' && error.nonce !== undefined ? new UseDpopNonceError(error.message, error.nonce) : new InvalidDpopProofError(error.message);
  }
}

/**
 * The key the issued tokens are bound to, or null for bearer tokens. A client registered with
 * `dpop_bound_access_tokens` must send a proof (RFC 9449 5.2; refused as `invalid_dpop_proof`, the error RFC 9449 5
 * gives a token request whose proof is not acceptable); the proof's jti is spent once across instances (RFC 9449 11.1).
 */
export async function acceptTokenRequestProof(db: Database, site: Site, client: Pick<OAuthClient, 'dpopBoundAccessTokens'>, proof: VerifiedProof | null): Promise<string | null> {
  if (proof === null) {
    if (client.dpopBoundAccessTokens) throw new InvalidDpopProofError('this client is registered with dpop_bound_access_tokens: send a DPoP proof with the token request');
    return null;
  }
  if (!(await consumeJti(db, 'dpop', site.origin, proof.jti, proof.replayableUntil))) {
    throw new InvalidDpopProofError('the DPoP proof jti was already used: make a new proof for each request');
  }
  return proof.jkt;
}

/**
 * A grant bound to a key (a code requested with dpop_jkt, RFC 9449 10; a public client's refresh token, RFC 9449 5)
 * is redeemed only with a proof of that key: none is `invalid_dpop_proof`, another key `invalid_grant`.
 */
export function requireBoundKey(boundJkt: string | null, proofJkt: string | null, what: string): void {
  if (boundJkt === null) return;
  if (proofJkt === null) throw new InvalidDpopProofError(`${what} is bound to a DPoP key: send a DPoP proof signed with that key`);
  if (proofJkt !== boundJkt) throw new InvalidGrantError(`${what} is bound to another DPoP key than the one that signed this proof`);
}
