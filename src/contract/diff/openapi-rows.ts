import type { Diff } from 'api-smart-diff';
import type { Severity, UsedElement } from './changes.js';
import { locate, type Location } from './openapi-locations.js';

/**
 * One edit of the admin contract = one row. api-smart-diff reports an edit of a shared schema once per operation
 * that reaches it, and a removed required property twice (the property, its entry in `required`); `groupDiffs`
 * collects those reports by the location of the edit (openapi-locations.ts) and folds a `required` entry into the
 * row of its property when both changed together.
 */

export const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const SEVERITY: Record<string, Severity> = {
  breaking: 'breaking',
  deprecated: 'dangerous',
  // Changes api-smart-diff cannot judge go to a human.
  unclassified: 'dangerous',
  'non-breaking': 'safe',
  annotation: 'safe',
};

const RANK: Record<Severity, number> = { breaking: 0, dangerous: 1, deprecated: 2, safe: 3 };

export interface DiffRow {
  action: Diff['action'];
  location: Location;
  /** The reports of this edit, one per operation that reaches it (the first names the row's message). */
  diffs: Diff[];
  severity: Severity;
  /** `GET /school`, sorted: the operations the edit reaches. */
  operations: string[];
  /** The admin operations whose use decides whether the edit hurts a client. */
  elements: UsedElement[];
  /** The property's `required` entry changed with it (folded in). */
  required: boolean;
  documentationOnly: boolean;
}

type Documents = { before: unknown; after: unknown; merged: unknown };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function operationWhere(path: readonly (string | number)[]): string {
  const [section, route, method] = path;
  if (section === 'paths' && typeof route === 'string') return typeof method === 'string' && METHODS.has(method) ? `${method.toUpperCase()} ${route}` : route;
  return path.slice(0, 3).join('.');
}

/** The operations a diff under `paths` reaches, with their operationIds (every method of a removed or added path item). */
function operationsOf(diff: Diff, documents: Documents): { where: string; operationId: string | null }[] {
  const [section, route, method] = diff.path;
  if (section !== 'paths' || typeof route !== 'string') return [];
  const item = [documents.before, documents.after].map((document) => (isRecord(document) && isRecord(document.paths) ? document.paths[route] : undefined)).find(isRecord);
  const methods = typeof method === 'string' && METHODS.has(method) ? [method] : Object.keys(item ?? {}).filter((key) => METHODS.has(key));
  return methods.map((name) => {
    const operation = [documents.before, documents.after]
      .map((document) => (isRecord(document) && isRecord(document.paths) && isRecord(document.paths[route]) ? (document.paths[route] as Record<string, unknown>)[name] : undefined))
      .find(isRecord);
    return { where: `${name.toUpperCase()} ${route}`, operationId: typeof operation?.operationId === 'string' ? operation.operationId : null };
  });
}

/** The operations that need `scope` of the security scheme `scheme` (their own `security`, else the document's). */
function operationsNeedingScope(document: unknown, scheme: string, scope: string): { where: string; operationId: string | null }[] {
  if (!isRecord(document) || !isRecord(document.paths)) return [];
  const found: { where: string; operationId: string | null }[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    if (!isRecord(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || !isRecord(operation)) continue;
      const security = operation.security ?? document.security;
      const needs = Array.isArray(security) && security.some((requirement) => isRecord(requirement) && Array.isArray(requirement[scheme]) && requirement[scheme].includes(scope));
      if (needs) found.push({ where: `${method.toUpperCase()} ${route}`, operationId: typeof operation.operationId === 'string' ? operation.operationId : null });
    }
  }
  return found;
}

function sideOf(diff: Diff, documents: Documents): { document: unknown; leaf: unknown } {
  return diff.action === 'add' ? { document: documents.after, leaf: diff.after as unknown } : { document: documents.before, leaf: diff.before as unknown };
}

function worst(a: Severity, b: Severity): Severity {
  return RANK[a] <= RANK[b] ? a : b;
}

/** `required[slug]` → `slug`; null for any other segment. */
export function requiredEntry(segment: string | undefined): string | null {
  return /^required\[(.*)\]$/.exec(segment ?? '')?.[1] ?? null;
}

/**
 * api-smart-diff copies a schema's `description` or `title` into the alternatives of its `oneOf`/`anyOf` (wrapping
 * some in `allOf`), and reports an edit of it once per alternative. When the alternative has no such annotation in
 * the document, the edit is the schema's.
 */
function withoutCopiedAnnotation(location: Location): Location {
  const { segments } = location;
  const annotation = segments.at(-1) ?? '';
  if (location.pointer !== null || !['description', 'title'].includes(annotation)) return location;
  const owner = segments.slice(0, -1);
  while (/^(oneOf|anyOf|allOf)\[/.test(owner.at(-1) ?? '')) owner.pop();
  if (owner.length === segments.length - 1) return location;
  const kept = [...owner, annotation];
  return { named: kept.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''), pointer: null, segments: kept };
}

export function groupDiffs(diffs: readonly Diff[], documents: Documents): DiffRow[] {
  const rows = new Map<string, DiffRow>();
  for (const diff of diffs) {
    const { document, leaf } = sideOf(diff, documents);
    const location = withoutCopiedAnnotation(locate(document, documents.merged, diff.path, leaf));
    const key = `${diff.action}:${location.named}`;
    const inScheme = diff.path[0] === 'components' && diff.path[1] === 'securitySchemes';
    const scope = inScheme && diff.path.includes('scopes') ? String(diff.path.at(-1)) : null;
    const reached = scope === null ? operationsOf(diff, documents) : operationsNeedingScope(documents.before, String(diff.path[2]), scope);
    // Removing a scope from the scheme strands the clients that hold it: breaking whatever the rating says.
    const severity: Severity = scope !== null && diff.action === 'remove' ? 'breaking' : (SEVERITY[diff.type] ?? 'dangerous');
    const row = rows.get(key) ?? { action: diff.action, location, diffs: [], severity, operations: [], elements: [], required: false, documentationOnly: true };
    row.diffs.push(diff);
    row.severity = worst(row.severity, severity);
    row.documentationOnly &&= diff.type === 'annotation';
    for (const { where, operationId } of reached) {
      if (!row.operations.includes(where)) row.operations.push(where);
      if (operationId !== null && !row.elements.some((element) => element.name === operationId)) row.elements.push({ api: 'admin', name: operationId });
    }
    rows.set(key, row);
  }
  // A property added or removed together with its `required` entry is one edit.
  for (const [key, row] of rows) {
    const property = requiredEntry(row.location.segments.at(-1));
    if (property === null || (row.action !== 'add' && row.action !== 'remove')) continue;
    const parent = row.location.named.slice(0, row.location.named.lastIndexOf('/'));
    const owner = rows.get(`${row.action}:${parent}/properties/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (owner === undefined) continue;
    owner.diffs.push(...row.diffs);
    owner.severity = worst(owner.severity, row.severity);
    owner.documentationOnly &&= row.documentationOnly;
    owner.required = true;
    for (const where of row.operations) if (!owner.operations.includes(where)) owner.operations.push(where);
    for (const element of row.elements) if (!owner.elements.some((known) => known.name === element.name)) owner.elements.push(element);
    rows.delete(key);
  }
  for (const row of rows.values()) {
    row.operations.sort();
    row.elements.sort((a, b) => a.name.localeCompare(b.name));
  }
  return [...rows.values()];
}
