/**
 * RFC 9449 4.3 check 5: the DPoP proof algorithms we accept, asymmetric only (never `none` or HS*). EdDSA and its
 * fully specified name Ed25519 (RFC 9864) are both accepted, since clients send either for an Ed25519 key.
 */
export const DPOP_SIGNING_ALGS = ['ES256', 'RS256', 'EdDSA', 'Ed25519'] as const;
