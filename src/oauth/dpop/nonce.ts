import { createHmac } from 'node:crypto';
import { configuredKeyRing, type KeyRing } from '../../keys/key-ring.js';
import { constantTimeEqual } from '../../shared/random.js';
import type { Site } from '../../sites/sites.js';

/**
 * Server-issued DPoP nonces (RFC 9449 8 and 9) without shared state: a nonce is an HMAC of the site and a time window
 * under a key derived from the key-encryption key every instance already holds (docs/signing-keys.md), so any
 * instance checks a nonce another issued. A nonce of the current or the previous window is fresh: it lives 5 to 10
 * minutes. Every key of the ring is tried, so a nonce survives a key-encryption key rotation.
 */
export const NONCE_WINDOW_SECONDS = 5 * 60;
const PURPOSE = 'schoolgate DPoP nonce';

function windowOf(now: Date): number {
  return Math.floor(now.getTime() / 1000 / NONCE_WINDOW_SECONDS);
}

function nonceFor(secret: Uint8Array, site: Site, window: number): string {
  const key = createHmac('sha256', secret).update(PURPOSE).digest();
  return createHmac('sha256', key).update(`${site.id}:${site.origin}:${window}`).digest('base64url');
}

/** The nonce to hand out now (DPoP-Nonce header). */
export function currentNonce(site: Site, now = new Date(), ring: KeyRing = configuredKeyRing()): string {
  return nonceFor(ring.current.secret, site, windowOf(now));
}

/** How fresh a presented nonce is: `current`, `previous` (still accepted; a new one goes out), or `stale`. */
export function nonceFreshness(site: Site, nonce: string, now = new Date(), ring: KeyRing = configuredKeyRing()): 'current' | 'previous' | 'stale' {
  const window = windowOf(now);
  for (const key of ring.byId.values()) {
    if (constantTimeEqual(nonce, nonceFor(key.secret, site, window))) return key === ring.current ? 'current' : 'previous';
    if (constantTimeEqual(nonce, nonceFor(key.secret, site, window - 1))) return 'previous';
  }
  return 'stale';
}
