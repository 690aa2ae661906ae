/**
 * The first protocol revision of the stateless era: every request carries the `_meta` envelope, and cacheable
 * results carry `ttlMs`/`cacheScope`. Revisions are dates, so later ones sort after it; the ones before it are the
 * 2025 era (`initialize`, then requests without the envelope).
 */
export const MODERN_REVISION = '2026-07-28';
