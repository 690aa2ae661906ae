import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../shared/random.js';

/** RFC 7636 4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]; the same alphabet and length for an S256 challenge. */
export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** S256 only (spec, Limits): BASE64URL(SHA256(code_verifier)) must equal the stored challenge. */
export function verifierMatchesChallenge(verifier: string, challenge: string): boolean {
  return constantTimeEqual(createHash('sha256').update(verifier, 'ascii').digest('base64url'), challenge);
}
