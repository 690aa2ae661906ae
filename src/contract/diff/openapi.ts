import { apiCompare, type Diff } from 'api-smart-diff';
import { parse } from 'yaml';
import type { ContractChange, Severity } from './changes.js';
import { UsageError, type ContractSources } from './sources.js';

/**
 * Changes of the admin API contract (openapi/admin.yaml), rated by api-smart-diff, which resolves `$ref`s and judges
 * each change from the client's side (removed operations or response fields, parameters that became required,
 * narrowed request enums are breaking). Reported per operation (`paths`) and for the OAuth scopes
 * (`components.securitySchemes`); the other `components` entries are reached through the operations that use them.
 */

const SEVERITY: Record<string, Severity> = {
  breaking: 'breaking',
  deprecated: 'dangerous',
  // Changes api-smart-diff cannot judge go to a human.
  unclassified: 'dangerous',
  'non-breaking': 'safe',
  annotation: 'safe',
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function documentOf(sources: ContractSources): unknown {
  if (sources.openapi === null) return null;
  try {
    return parse(sources.openapi);
  } catch (error) {
    throw new UsageError(`openapi/admin.yaml of ${sources.label} is not YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function pointer(path: readonly (string | number)[]): string {
  return path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function whereOf(path: readonly (string | number)[]): string {
  const [section, route, method] = path;
  if (section === 'paths' && typeof route === 'string') return typeof method === 'string' && METHODS.has(method) ? `${method.toUpperCase()} ${route}` : route;
  return path.slice(0, 3).join('.');
}

function show(value: unknown): string {
  return typeof value === 'string' ? `\`${value}\`` : `\`${JSON.stringify(value)}\``;
}

/** api-smart-diff describes a scope change as "some security details"; say which scope went where. */
function messageOf(diff: Diff, where: string): string {
  if (diff.path.includes('security')) {
    if (diff.action === 'replace') return `The scope ${where} requires changed from ${show(diff.before)} to ${show(diff.after)}.`;
    if (diff.action === 'add') return `${where} now also requires ${show(diff.after)}.`;
    if (diff.action === 'remove') return `${where} no longer requires ${show(diff.before)}.`;
  }
  if (diff.path[0] === 'components' && diff.path[1] === 'securitySchemes') {
    const scope = diff.path.at(-1);
    if (diff.path.includes('scopes') && diff.action === 'remove') return `The scope \`${String(scope)}\` was removed from the OAuth scheme.`;
    if (diff.path.includes('scopes') && diff.action === 'add') return `The scope \`${String(scope)}\` was added to the OAuth scheme.`;
  }
  return diff.description ?? `${diff.action} at ${pointer(diff.path)}`;
}

export function openapiChanges(base: ContractSources, head: ContractSources): ContractChange[] {
  const before = documentOf(base);
  const after = documentOf(head);
  if (before === null || after === null) return [];
  const { diffs } = apiCompare(before, after);
  return diffs
    .filter((diff) => diff.path[0] === 'paths' || (diff.path[0] === 'components' && diff.path[1] === 'securitySchemes'))
    .map((diff): ContractChange => {
      const where = whereOf(diff.path);
      // Removing a scope from the scheme strands the clients that hold it: breaking whatever the rating says.
      const removesScope = diff.path[1] === 'securitySchemes' && diff.path.includes('scopes') && diff.action === 'remove';
      return {
        api: 'openapi',
        id: `openapi:${diff.action}:${pointer(diff.path)}`,
        severity: removesScope ? 'breaking' : (SEVERITY[diff.type] ?? 'dangerous'),
        where,
        message: messageOf(diff, where),
      };
    });
}
