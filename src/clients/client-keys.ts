import { createPublicKey, type JsonWebKey } from 'node:crypto';
import type { FieldProblem } from '../shared/errors.js';
import type { TokenEndpointAuthMethod } from './auth-methods.js';
import type { ClientJwks } from './client.js';

/**
 * RFC 7518 3.1 / RFC 8037 3.1: the signing algorithms a client assertion may use; never `none`, never HMAC. An Ed25519
 * key signs as EdDSA or under its fully specified name Ed25519 (RFC 9864), which oauth4webapi sends; both are accepted.
 */
export const CLIENT_ASSERTION_ALGORITHMS = ['ES256', 'RS256', 'EdDSA', 'Ed25519'] as const;
export type ClientAssertionAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];

/** A client rotates keys by publishing the new one beside the old; a handful is plenty, and bounds the work per request. */
export const MAX_CLIENT_KEYS = 10;
/** Column limit of oauth_clients.jwks_uri. */
const MAX_JWKS_URI_LENGTH = 2048;
/** Smallest RSA modulus accepted (NIST SP 800-131A: 2048 bits). */
const MIN_RSA_BITS = 2048;
/** RFC 7518 6.2.2, 6.3.2, 6.4 and RFC 8037 2: members that carry private or symmetric key material. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** The algorithms a key type signs with here: EC P-256 → ES256, RSA → RS256, OKP Ed25519 → EdDSA or Ed25519. */
function algorithmsFor(key: Record<string, unknown>): ClientAssertionAlgorithm[] | null {
  if (key.kty === 'EC' && key.crv === 'P-256') return ['ES256'];
  if (key.kty === 'RSA') return ['RS256'];
  if (key.kty === 'OKP' && key.crv === 'Ed25519') return ['EdDSA', 'Ed25519'];
  return null;
}

/** Why one JWK cannot verify client assertions; empty when it can. */
export function clientKeyProblems(key: unknown): string[] {
  if (key === null || typeof key !== 'object' || Array.isArray(key)) return ['must be a JSON object (a JWK)'];
  const jwk = key as Record<string, unknown>;
  const secret = PRIVATE_MEMBERS.filter((member) => jwk[member] !== undefined);
  if (secret.length > 0) return [`must be a public key: remove the private key member(s) ${secret.join(', ')}`];
  const algorithms = algorithmsFor(jwk);
  if (!algorithms) return [`kty ${JSON.stringify(jwk.kty ?? null)}${jwk.crv === undefined ? '' : ` crv ${JSON.stringify(jwk.crv)}`} is not accepted; use EC P-256 (ES256), RSA of at least ${MIN_RSA_BITS} bits (RS256) or OKP Ed25519 (EdDSA)`];
  const problems: string[] = [];
  if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || jwk.kid === '')) problems.push('kid must be a non-empty string');
  if (jwk.use !== undefined && jwk.use !== 'sig') problems.push(`use must be sig (it is ${JSON.stringify(jwk.use)})`);
  if (jwk.alg !== undefined && !(algorithms as readonly unknown[]).includes(jwk.alg)) problems.push(`alg must be ${algorithms.join(' or ')} for this key type (it is ${JSON.stringify(jwk.alg)})`);
  if (jwk.key_ops !== undefined && (!Array.isArray(jwk.key_ops) || !jwk.key_ops.includes('verify'))) problems.push('key_ops, when given, must include verify');
  try {
    // Imports the key as node:crypto would verify with it: rejects bad base64url, points off the curve, broken moduli.
    const publicKey = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    const bits = publicKey.asymmetricKeyDetails?.modulusLength;
    if (jwk.kty === 'RSA' && (bits === undefined || bits < MIN_RSA_BITS)) problems.push(`an RSA key must have at least ${MIN_RSA_BITS} bits (this one has ${bits ?? 'an unknown number of'})`);
  } catch (error) {
    problems.push(`is not a usable ${String(jwk.kty)} public key (${error instanceof Error ? error.message : String(error)})`);
  }
  return problems;
}

/** Problems of a JWK Set (RFC 7517 5) of client signing keys, each with a pointer below `pointer`. */
export function jwksProblems(jwks: unknown, pointer: string): FieldProblem[] {
  if (jwks === null || typeof jwks !== 'object' || Array.isArray(jwks)) return [{ pointer, message: 'must be a JWK Set: a JSON object with a "keys" array' }];
  const keys = (jwks as Record<string, unknown>).keys;
  if (!Array.isArray(keys) || keys.length === 0) return [{ pointer: `${pointer}/keys`, message: 'must be a non-empty array of public JWKs' }];
  if (keys.length > MAX_CLIENT_KEYS) return [{ pointer: `${pointer}/keys`, message: `may hold at most ${MAX_CLIENT_KEYS} keys` }];
  const problems: FieldProblem[] = [];
  const kids = new Map<string, number>();
  keys.forEach((key: unknown, index) => {
    const at = `${pointer}/keys/${index}`;
    for (const message of clientKeyProblems(key)) problems.push({ pointer: at, message });
    const kid = key !== null && typeof key === 'object' ? (key as Record<string, unknown>).kid : undefined;
    // With several keys the assertion's kid picks one, so each needs a distinct kid (RFC 7517 4.5).
    if (typeof kid === 'string' && kid !== '') {
      const first = kids.get(kid);
      if (first !== undefined) problems.push({ pointer: `${at}/kid`, message: `duplicate kid "${kid}" (first at keys/${first})` });
      else kids.set(kid, index);
    } else if (keys.length > 1 && kid === undefined) {
      problems.push({ pointer: `${at}/kid`, message: 'each key of a set with several keys needs a kid' });
    }
  });
  return problems;
}

/** Why a jwks_uri cannot be registered; null when it can. It is fetched like a Client ID Metadata Document: https only. */
export function jwksUriProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return 'must be an https URL';
  if (value.length > MAX_JWKS_URI_LENGTH) return `must be at most ${MAX_JWKS_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute https URL';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (value.includes('#')) return 'must not contain a fragment';
  return null;
}

export interface ClientKeysInput {
  method: TokenEndpointAuthMethod;
  /** The registered JWK Set, or null/undefined for none. */
  jwks?: unknown;
  jwksUri?: unknown;
}

export interface ClientKeysPointers {
  jwks: string;
  jwksUri: string;
}

/**
 * What a client may register beside its authentication method: private_key_jwt (RFC 7523 2.2, OIDC Core 9) needs
 * exactly one of an inline JWK Set of public signing keys or a jwks_uri (OIDC Dynamic Client Registration 2: "MUST NOT
 * both be present"); every other method takes no keys. Pointers default to the admin API's field names.
 */
export function validateClientKeys(input: ClientKeysInput, pointers: ClientKeysPointers = { jwks: '/jwks', jwksUri: '/jwksUri' }): FieldProblem[] {
  const hasJwks = input.jwks !== undefined && input.jwks !== null;
  const hasUri = input.jwksUri !== undefined && input.jwksUri !== null;
  if (input.method !== 'private_key_jwt') {
    const problems: FieldProblem[] = [];
    if (hasJwks) problems.push({ pointer: pointers.jwks, message: `keys are registered only for private_key_jwt; this client uses ${input.method}` });
    if (hasUri) problems.push({ pointer: pointers.jwksUri, message: `keys are registered only for private_key_jwt; this client uses ${input.method}` });
    return problems;
  }
  if (hasJwks && hasUri) return [{ pointer: pointers.jwksUri, message: 'give either jwks or jwksUri, not both' }];
  if (!hasJwks && !hasUri) return [{ pointer: pointers.jwks, message: 'private_key_jwt needs the public keys: a jwks (JWK Set) or a jwksUri' }];
  if (hasJwks) return jwksProblems(input.jwks, pointers.jwks);
  const problem = jwksUriProblem(input.jwksUri);
  return problem ? [{ pointer: pointers.jwksUri, message: problem }] : [];
}

/** A JWK Set that passed validateClientKeys, typed for storage. */
export function asClientJwks(jwks: unknown): ClientJwks {
  return jwks as ClientJwks;
}
