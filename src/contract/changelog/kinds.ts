import type { ContractChange } from '../diff/changes.js';

/**
 * What a contract change means to the people who call the API, for the changelog: a change is added, deprecated,
 * removed, a scope change, or another change. Edits of descriptions only are left out.
 */
export type ChangelogKind = 'added' | 'deprecated' | 'removed' | 'scopes' | 'changed';

export const KIND_ORDER: readonly ChangelogKind[] = ['added', 'deprecated', 'removed', 'scopes', 'changed'];

export const KIND_HEADINGS: Record<ChangelogKind, string> = { added: 'Added', deprecated: 'Deprecated', removed: 'Removed', scopes: 'Scopes changed', changed: 'Changed' };

/**
 * The part of the id after the API: `FIELD_REMOVED` of `graphql:FIELD_REMOVED:Course.slug`, `remove` of
 * `openapi:remove:/paths/…`, `TOOL_REMOVED` of `mcp:TOOL_REMOVED:list_my_courses`.
 */
function kindOfId(change: ContractChange): string {
  return change.id.split(':')[1] ?? '';
}

export function changelogKind(change: ContractChange): ChangelogKind | null {
  if (change.documentationOnly) return null;
  const kind = kindOfId(change);
  if (kind === 'DEPRECATED' || kind === 'deprecated') return 'deprecated';
  if (kind === 'SCOPE_CHANGED' || (change.api === 'openapi' && (change.id.includes('/security') || change.id.includes('/scopes/')))) return 'scopes';
  // A `required` entry of its own (openapi-rows.ts) makes an existing property required or optional: a change, not an addition.
  if (change.api === 'openapi' && /\/required\[[^\]]*\]$/.test(change.id)) return 'changed';
  if (kind.endsWith('_ADDED') || kind === 'add') return 'added';
  if (kind.endsWith('_REMOVED') || kind === 'remove') return kind === 'DEPRECATION_REMOVED' ? 'changed' : 'removed';
  return 'changed';
}
