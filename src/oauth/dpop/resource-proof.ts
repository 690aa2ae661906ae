import type { Database } from '../../db/connection.js';
import type { Site } from '../../sites/sites.js';
import { DpopProofChallengeError, InvalidTokenError } from '../errors.js';
import { consumeJti } from '../single-use-jti.js';
import type { AccessTokenPair } from '../tokens/store.js';
import { DpopProofRefusal, verifyProof, type VerifiedProof } from './proof.js';
import { nonceChecker, singleProof, type DpopRequest } from './request.js';

/**
 * DPoP at a protected resource (RFC 9449 7): the proof sent with `Authorization: DPoP <token>` passes RFC 9449 4.3's
 * checks with `ath` for that token; refusals are 401 with a DPoP challenge (RFC 9449 7.1). Reads and writes nothing.
 */
export async function verifyResourceProof(site: Site, accessToken: string, request: DpopRequest, now = new Date()): Promise<VerifiedProof> {
  try {
    const proof = singleProof(request);
    if (proof === undefined) throw new DpopProofRefusal('invalid_dpop_proof', 'a token sent with the DPoP scheme needs a DPoP proof header');
    return await verifyProof(proof, { method: request.method, url: request.url, accessToken, checkNonce: nonceChecker(site, request, now), now });
  } catch (error) {
    if (!(error instanceof DpopProofRefusal)) throw error;
    throw new DpopProofChallengeError(site.origin, error.errorCode, error.message, error.nonce);
  }
}

/**
 * Proof of possession for a token that passed every other check (RFC 9449 7.1, 7.2): a DPoP-bound token only with
 * the DPoP scheme and a proof of its key, whose jti is then spent once across instances (RFC 9449 11.1); an unbound
 * token only as Bearer. Only the jti is written, and only when everything else holds.
 */
export async function requireProofOfPossession(db: Database, site: Site, pair: Pick<AccessTokenPair, 'dpopJkt'>, scheme: 'Bearer' | 'DPoP', proof: VerifiedProof | null): Promise<void> {
  if (pair.dpopJkt === null) {
    if (scheme === 'DPoP') throw new InvalidTokenError(site.origin, 'the access token is not DPoP-bound: send it as Authorization: Bearer <token>', 'DPoP');
    return;
  }
  if (scheme !== 'DPoP' || proof === null) throw new InvalidTokenError(site.origin, 'the access token is DPoP-bound: send it as Authorization: DPoP <token> with a DPoP proof of its key', 'DPoP');
  if (proof.jkt !== pair.dpopJkt) throw new DpopProofChallengeError(site.origin, 'invalid_dpop_proof', 'the DPoP proof is signed by another key than the one the access token is bound to');
  if (!(await consumeJti(db, 'dpop', site.origin, proof.jti, proof.replayableUntil))) {
    throw new DpopProofChallengeError(site.origin, 'invalid_dpop_proof', 'the DPoP proof jti was already used: make a new proof for each request');
  }
}
