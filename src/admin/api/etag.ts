import { PreconditionFailedProblem } from './problems.js';

/**
 * Optimistic concurrency (docs/admin-api.md, Concurrency): the strong ETag of a resource is its row's `version`,
 * `"v<version>"`; every write increments the version. A PATCH names the version it is based on in If-Match.
 */
export function etagOf(version: number): string {
  return `"v${version}"`;
}

/**
 * The version an If-Match names. The contract's pattern already refused `*`, lists and weak tags; a well-formed tag
 * that is not one of ours can never match, so it is a 412 like any stale one.
 */
export function versionFromIfMatch(ifMatch: string): number {
  const match = /^"v([1-9][0-9]{0,9})"$/.exec(ifMatch);
  if (!match?.[1]) throw new PreconditionFailedProblem();
  return Number(match[1]);
}

/** 412 unless If-Match names the current version (for changes that need no write when nothing changes). */
export function requireCurrentVersion(ifMatch: string, current: number): void {
  if (versionFromIfMatch(ifMatch) !== current) throw new PreconditionFailedProblem();
}
