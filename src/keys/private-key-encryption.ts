import { CompactEncrypt, compactDecrypt, decodeProtectedHeader, type JWK } from 'jose';
import type { KeyEncryptionKey, KeyRing } from './key-ring.js';

/** The row a private key belongs to; both values are bound into its ciphertext. */
export interface KeyOwner {
  siteId: number;
  /** The signing key's kid (the thumbprint of its public key). */
  kid: string;
}

// Private header parameters (RFC 7516 4.3). The protected header is the additional authenticated data of A256GCM
// (RFC 7516 5.1, step 14), so a ciphertext copied into another site's row, or another key's, fails to decrypt.
const SITE_PARAMETER = 'schoolgate_site_id';
const KID_PARAMETER = 'schoolgate_signing_kid';
const KEY_MANAGEMENT = 'dir';
const CONTENT_ENCRYPTION = 'A256GCM';

/** A private key that cannot be decrypted here: never replaced by a new key, always reported (docs/signing-keys.md). */
export class SigningKeyUnreadableError extends Error {
  override readonly name = 'SigningKeyUnreadableError';
  readonly code = 'signing_key_unreadable';
  constructor(
    readonly owner: KeyOwner,
    /** The id of the key-encryption key the ciphertext names, when it names one. */
    readonly keyEncryptionKeyId: string | undefined,
    reason: string,
  ) {
    super(`the private signing key ${owner.kid} of site ${owner.siteId} ${reason}`);
  }
}

/** Encrypts a private JWK as a compact JWE (`dir`, A256GCM) whose `kid` names the key-encryption key. */
export async function encryptPrivateJwk(jwk: JWK, owner: KeyOwner, key: KeyEncryptionKey): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(jwk)))
    .setProtectedHeader({ alg: KEY_MANAGEMENT, enc: CONTENT_ENCRYPTION, kid: key.id, cty: 'jwk+json', [SITE_PARAMETER]: owner.siteId, [KID_PARAMETER]: owner.kid })
    .encrypt(key.secret);
}

/** The private JWK inside `jwe`, decrypted with whichever key of the ring its `kid` names. */
export async function decryptPrivateJwk(jwe: string, owner: KeyOwner, ring: KeyRing): Promise<JWK> {
  let kekId: string | undefined;
  try {
    kekId = decodeProtectedHeader(jwe).kid;
  } catch {
    throw new SigningKeyUnreadableError(owner, undefined, 'is not an encrypted key (the row was altered)');
  }
  const key = kekId === undefined ? undefined : ring.byId.get(kekId);
  if (!key) {
    throw new SigningKeyUnreadableError(owner, kekId, `is encrypted with key-encryption key ${kekId ?? '(none named)'}, which is not configured here (current key ${ring.current.id})`);
  }
  try {
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, key.secret, { keyManagementAlgorithms: [KEY_MANAGEMENT], contentEncryptionAlgorithms: [CONTENT_ENCRYPTION] });
    if (protectedHeader[SITE_PARAMETER] !== owner.siteId || protectedHeader[KID_PARAMETER] !== owner.kid) throw new Error('the ciphertext belongs to another key');
    return JSON.parse(new TextDecoder().decode(plaintext)) as JWK;
  } catch {
    throw new SigningKeyUnreadableError(owner, kekId, `does not decrypt with key-encryption key ${kekId ?? ''}: the ciphertext was altered or belongs to another key`);
  }
}
