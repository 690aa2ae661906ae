import { apiCompare, type Diff } from 'api-smart-diff';
import { parse } from 'yaml';
import type { Deprecation } from '../../deprecations/deprecation.js';
import { openapiDeprecations } from '../../deprecations/openapi-deprecations.js';
import type { ContractChange, Severity } from './changes.js';
import { deprecationChanges, removalVerdict } from './deprecation-policy.js';
import { UsageError, type ContractSources } from './sources.js';

/**
 * Changes of the admin API contract (openapi/admin.yaml), rated by api-smart-diff, which resolves `$ref`s and judges
 * each change from the client's side (removed operations or response fields, parameters that became required,
 * narrowed request enums are breaking). Reported per operation (`paths`) and for the OAuth scopes
 * (`components.securitySchemes`); the other `components` entries are reached through the operations that use them.
 *
 * Deprecations follow the policy (deprecation-policy.ts): the edits of `deprecated`, `x-deprecated-since`, `x-sunset`
 * and `x-replaced-by` become one `deprecated` change per element, and removing a deprecated operation is judged against
 * its sunset date.
 */

const DEPRECATION_KEYS = new Set(['deprecated', 'x-deprecated-since', 'x-sunset', 'x-replaced-by']);

const SEVERITY: Record<string, Severity> = {
  breaking: 'breaking',
  deprecated: 'dangerous',
  // Changes api-smart-diff cannot judge go to a human.
  unclassified: 'dangerous',
  'non-breaking': 'safe',
  annotation: 'safe',
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** One side's openapi/admin.yaml, parsed; null when that side has none. */
export function openapiDocumentOf(sources: ContractSources): unknown {
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
  const [section, , method] = diff.path;
  if (section === 'paths' && diff.path.length === 3 && typeof method === 'string' && METHODS.has(method) && (diff.action === 'add' || diff.action === 'remove')) {
    const operation = (diff.action === 'add' ? diff.after : diff.before) as { operationId?: unknown; summary?: unknown } | undefined;
    const name = typeof operation?.operationId === 'string' ? ` \`${operation.operationId}\`` : '';
    if (diff.action === 'remove') return `The operation${name} was removed.`;
    return `New operation${name}${typeof operation?.summary === 'string' ? `: ${operation.summary}` : ''}.`;
  }
  // api-smart-diff starts its descriptions with the action in brackets: "[Removed] property …" reads "Removed property …".
  return diff.description?.replace(/^\[([^\]]*)\]\s*/, '$1 ') ?? `${diff.action} at ${pointer(diff.path)}`;
}

/** The deprecation a removal at `path` takes away: the element's own, or the latest of a path whose operations all were. */
function deprecationRemoved(path: readonly (string | number)[], before: Record<string, unknown>, deprecations: ReadonlyMap<string, Deprecation>): Deprecation | undefined {
  const own = deprecations.get(pointer(path));
  if (own !== undefined || path.length !== 2 || path[0] !== 'paths') return own;
  const item = (before.paths as Record<string, Record<string, unknown>> | undefined)?.[String(path[1])] ?? {};
  const operations = Object.keys(item)
    .filter((method) => METHODS.has(method))
    .map((method) => deprecations.get(pointer([...path, method])));
  if (operations.length === 0 || operations.some((operation) => operation?.sunset === null || operation?.sunset === undefined)) return undefined;
  return (operations as Deprecation[]).reduce((latest, operation) => ((operation.sunset ?? '') > (latest.sunset ?? '') ? operation : latest));
}

function resolves(document: unknown, path: string): boolean {
  let node: unknown = document;
  for (const part of path.split('/').slice(1).map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return true;
}

export function openapiChanges(base: ContractSources, head: ContractSources, options: { today: string }): ContractChange[] {
  const before = openapiDocumentOf(base);
  const after = openapiDocumentOf(head);
  if (before === null || after === null) return [];
  const deprecatedBefore = openapiDeprecations(before);
  const byPointer = new Map(deprecatedBefore.map((deprecation) => [deprecation.pointer ?? '', deprecation]));
  const { diffs } = apiCompare(before, after);
  const changes = diffs
    .filter((diff) => diff.path[0] === 'paths' || (diff.path[0] === 'components' && diff.path[1] === 'securitySchemes'))
    .filter((diff) => !DEPRECATION_KEYS.has(String(diff.path.at(-1))))
    .map((diff): ContractChange => {
      const where = whereOf(diff.path);
      // Removing a scope from the scheme strands the clients that hold it: breaking whatever the rating says.
      const removesScope = diff.path[1] === 'securitySchemes' && diff.path.includes('scopes') && diff.action === 'remove';
      const change: ContractChange = {
        api: 'openapi',
        id: `openapi:${diff.action}:${pointer(diff.path)}`,
        severity: removesScope ? 'breaking' : (SEVERITY[diff.type] ?? 'dangerous'),
        where,
        message: messageOf(diff, where),
      };
      if (diff.type === 'annotation') change.documentationOnly = true;
      return diff.action === 'remove' ? removalVerdict(change, deprecationRemoved(diff.path, before as Record<string, unknown>, byPointer), options.today) : change;
    });
  changes.push(
    ...deprecationChanges(deprecatedBefore, openapiDeprecations(after), {
      today: options.today,
      identity: (deprecation) => deprecation.pointer ?? deprecation.key,
      idOf: (kind, deprecation) => `openapi:${kind}:${deprecation.pointer ?? deprecation.key}`,
      existsAfter: (deprecation) => resolves(after, deprecation.pointer ?? ''),
    }),
  );
  return changes;
}
