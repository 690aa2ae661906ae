import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, EmbeddedJWK, errors, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { DPOP_SIGNING_ALGS } from './algorithms.js';

/** RFC 9449 4.3 check 11: how far a proof's `iat` may lie in the future (clock skew) and how old it may be. */
export const PROOF_CLOCK_SKEW_SECONDS = 60;
export const PROOF_MAX_AGE_SECONDS = 5 * 60;
/** A proof is one compact JWS with a public key in its header: a few KiB at most (a 4096-bit RSA key fits). */
const MAX_PROOF_LENGTH = 8 * 1024;
const MAX_JTI_LENGTH = 256;

/** Why a proof was refused: `invalid_dpop_proof`, or `use_dpop_nonce` when only a (fresh) server nonce is missing (RFC 9449 8, 9). */
export class DpopProofRefusal extends Error {
  constructor(
    readonly errorCode: 'invalid_dpop_proof' | 'use_dpop_nonce',
    description: string,
    /** The fresh nonce to send with a use_dpop_nonce refusal (DPoP-Nonce). */
    readonly nonce?: string,
  ) {
    super(description);
  }
}

/** What the request the proof came with must match. */
export interface ProofExpectations {
  /** The request's method (`htm`). */
  method: string;
  /** The request's URL without query and fragment, as this server is reached (`htu`). */
  url: string;
  /** The access token sent with the proof at a protected resource (`ath`); absent at the token endpoint. */
  accessToken?: string;
  /** Decides on the proof's `nonce` claim: refusal text when it is not acceptable, else null. */
  checkNonce: (nonce: string | undefined) => DpopProofRefusal | null;
  now?: Date;
}

/** A proof that passed every stateless check; its `jti` still has to be spent (once, across instances). */
export interface VerifiedProof {
  /** RFC 7638 SHA-256 thumbprint of the proof's public key: what tokens are bound to (`cnf.jkt`, RFC 9449 6). */
  jkt: string;
  jti: string;
  /** Until when the jti must be remembered: after that the proof is too old to be accepted anyway. */
  replayableUntil: Date;
  nonce: string | undefined;
}

/** base64url(SHA-256(access token)): the `ath` claim (RFC 9449 4.2). */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/** `scheme://host[:port]/path` of a URL, scheme and host lower case and the default port dropped (RFC 9449 4.3 check 9, RFC 3986 6.2). */
export function normalizedHtu(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return `${url.origin}${url.pathname}`;
}

/**
 * RFC 9449 4.3, checks 2-12 on one DPoP proof JWT: `typ` dpop+jwt, an asymmetric `alg` we support (never `none` or
 * HS*), a public `jwk` in the header that verifies the signature, and the claims `jti`, `htm`, `htu`, `iat`, `ath`
 * and `nonce` matching the request. Throws DpopProofRefusal; reads and writes nothing.
 */
export async function verifyProof(proof: string, expected: ProofExpectations): Promise<VerifiedProof> {
  if (proof.length > MAX_PROOF_LENGTH) throw new DpopProofRefusal('invalid_dpop_proof', `the DPoP proof is longer than ${MAX_PROOF_LENGTH} characters`);
  const { payload, protectedHeader } = await verifySignature(proof);
  const now = Math.floor((expected.now ?? new Date()).getTime() / 1000);
  const jti = checkJti(payload);
  checkMethod(payload, expected.method);
  checkUrl(payload, expected.url);
  const iat = checkIssuedAt(payload, now);
  checkAccessTokenHash(payload, expected.accessToken);
  const nonce = payload.nonce;
  if (nonce !== undefined && typeof nonce !== 'string') throw new DpopProofRefusal('invalid_dpop_proof', 'the DPoP proof nonce claim must be a string');
  const nonceRefusal = expected.checkNonce(nonce);
  if (nonceRefusal) throw nonceRefusal;
  const jkt = await calculateJwkThumbprint(protectedHeader.jwk as JWK, 'sha256');
  return { jkt, jti, replayableUntil: new Date((iat + PROOF_MAX_AGE_SECONDS + PROOF_CLOCK_SKEW_SECONDS) * 1000), nonce };
}

async function verifySignature(proof: string) {
  try {
    // EmbeddedJWK refuses a header without `jwk` and a `jwk` that is not a public key (RFC 9449 4.3 check 7).
    return await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...DPOP_SIGNING_ALGS] });
  } catch (error) {
    throw new DpopProofRefusal('invalid_dpop_proof', `the DPoP proof is not accepted: ${reasonOf(error)}`);
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JOSEAlgNotAllowed) return `its alg must be one of ${DPOP_SIGNING_ALGS.join(', ')}`;
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'typ') return 'its typ header must be dpop+jwt';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature does not verify with the jwk in its header';
  if (error instanceof errors.JOSEError) return error.message;
  return 'it is not a JWT signed with the public key in its jwk header';
}

function checkJti(payload: JWTPayload): string {
  const { jti } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) throw new DpopProofRefusal('invalid_dpop_proof', `the DPoP proof needs a jti claim of 1 to ${MAX_JTI_LENGTH} characters`);
  return jti;
}

function checkMethod(payload: JWTPayload, method: string): void {
  if (payload.htm !== method) throw new DpopProofRefusal('invalid_dpop_proof', `the DPoP proof htm claim must be the request method ${method}`);
}

function checkUrl(payload: JWTPayload, url: string): void {
  const presented = typeof payload.htu === 'string' ? normalizedHtu(payload.htu) : null;
  if (presented === null || presented !== normalizedHtu(url)) throw new DpopProofRefusal('invalid_dpop_proof', `the DPoP proof htu claim must be the request URL ${url} (without query and fragment)`);
}

function checkIssuedAt(payload: JWTPayload, now: number): number {
  const { iat } = payload;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw new DpopProofRefusal('invalid_dpop_proof', 'the DPoP proof needs a numeric iat claim');
  if (iat > now + PROOF_CLOCK_SKEW_SECONDS) throw new DpopProofRefusal('invalid_dpop_proof', `the DPoP proof iat claim is more than ${PROOF_CLOCK_SKEW_SECONDS} seconds in the future; check the client's clock`);
  if (iat < now - PROOF_MAX_AGE_SECONDS) throw new DpopProofRefusal('invalid_dpop_proof', `the DPoP proof is older than ${PROOF_MAX_AGE_SECONDS} seconds (iat); make a new proof for each request`);
  return iat;
}

function checkAccessTokenHash(payload: JWTPayload, accessToken: string | undefined): void {
  if (accessToken === undefined) return;
  if (payload.ath !== accessTokenHash(accessToken)) throw new DpopProofRefusal('invalid_dpop_proof', 'the DPoP proof ath claim must be the base64url SHA-256 of the access token sent with it');
}
