import type { IncomingMessage } from 'node:http';
import type { Site } from '../../sites/sites.js';
import { currentNonce, nonceFreshness } from './nonce.js';
import { DpopProofRefusal } from './proof.js';

/** What the DPoP checks read of a request, at the token endpoint and at every protected resource alike. */
export interface DpopRequest {
  method: string;
  /** The request URL as clients reach this site: its origin and the path, no query (RFC 9449 4.3 check 9). */
  url: string;
  /** The DPoP header, when there is exactly one; RFC 9449 4.3 check 1 refuses more than one. */
  proof: string | undefined;
  /** How many DPoP headers came. */
  proofCount: number;
  /** Whether this deployment requires server nonces (SCHOOLGATE_DPOP_NONCE_REQUIRED). */
  nonceRequired: boolean;
  /** Sets the DPoP-Nonce response header: a fresh nonce for the next proof (RFC 9449 8.2, 9). */
  sendNonce: (nonce: string) => void;
}

const NO_PROOFS: readonly string[] = [];

/** The one reading of a request's DPoP headers, so the token endpoint and the resources cannot drift apart. */
export function dpopRequestOf(
  site: Site,
  request: { method: string; path: string; req: IncomingMessage; set: (name: string, value: string) => void },
  nonceRequired: boolean,
): DpopRequest {
  // headersDistinct keeps repeated headers apart (headers would join them with ", "); Node builds it for every header
  // of the request, so it is read only when a DPoP header came at all.
  const proofs = request.req.headers.dpop === undefined ? NO_PROOFS : (request.req.headersDistinct.dpop ?? NO_PROOFS);
  return {
    method: request.method,
    url: `${site.origin}${request.path}`,
    proof: proofs.length === 1 ? proofs[0] : undefined,
    proofCount: proofs.length,
    nonceRequired,
    sendNonce: (nonce) => request.set('DPoP-Nonce', nonce),
  };
}

/** The single DPoP proof of a request, undefined when none came; more than one is refused (RFC 9449 4.3 check 1). */
export function singleProof(request: DpopRequest): string | undefined {
  if (request.proofCount > 1) throw new DpopProofRefusal('invalid_dpop_proof', 'send exactly one DPoP header');
  return request.proof;
}

/**
 * The nonce rule of RFC 9449 8 and 9: a nonce we issued is accepted in its window and the one before (then a fresh
 * one goes out with the answer); a stale or unknown nonce, or a missing one where nonces are required, is
 * `use_dpop_nonce` with a fresh nonce in DPoP-Nonce.
 */
export function nonceChecker(site: Site, request: DpopRequest, now = new Date()): (nonce: string | undefined) => DpopProofRefusal | null {
  return (nonce) => {
    if (nonce === undefined && !request.nonceRequired) return null;
    const freshness = nonce === undefined ? 'stale' : nonceFreshness(site, nonce, now);
    if (freshness === 'current') return null;
    const fresh = currentNonce(site, now);
    request.sendNonce(fresh);
    if (freshness === 'previous') return null;
    const description = nonce === undefined ? 'this server requires a nonce in DPoP proofs: use the one in the DPoP-Nonce header' : 'the DPoP proof nonce is not current: use the one in the DPoP-Nonce header';
    return new DpopProofRefusal('use_dpop_nonce', description, fresh);
  };
}
