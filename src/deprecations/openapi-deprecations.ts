import { isCalendarDate, type Deprecation } from './deprecation.js';

/**
 * The admin API's deprecation convention (docs/versioning.md): next to `deprecated: true`, `x-sunset` (the RFC 3339
 * date from which the element may be removed) and `x-replaced-by` (for an operation, the operationId to use instead;
 * for a parameter or property, a short text naming what replaces it). An operation also gives `x-deprecated-since`,
 * the day the deprecation took effect, which its responses announce in the `Deprecation` header (RFC 9745):
 *
 *   get:
 *     operationId: getSchool
 *     deprecated: true
 *     x-deprecated-since: 2026-12-01
 *     x-sunset: 2027-06-30
 *     x-replaced-by: getSchoolProfile
 */

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function pointerOf(path: readonly string[]): string {
  return path.map((part) => `/${part.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** YAML may hand a date over as a Date; the convention is the text `YYYY-MM-DD`. */
function dateOf(value: unknown): string | null {
  const text = value instanceof Date ? value.toISOString().slice(0, 10) : value;
  return typeof text === 'string' && isCalendarDate(text) ? text : null;
}

function describe(path: readonly string[], node: Record<string, unknown>): { key: string; where: string } {
  const [section, route, method] = path;
  if (section === 'paths' && route !== undefined && method !== undefined && path.length === 3 && METHODS.has(method)) {
    const where = `${method.toUpperCase()} ${route}`;
    return { key: typeof node.operationId === 'string' ? node.operationId : where, where };
  }
  const pointer = pointerOf(path);
  return { key: pointer, where: pointer };
}

/** Every object of the document marked `deprecated: true`: operations, parameters, schema properties. */
export function openapiDeprecations(document: unknown): Deprecation[] {
  const found: Deprecation[] = [];
  const visit = (node: unknown, path: string[]) => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, String(index)]));
      return;
    }
    if (!isRecord(node)) return;
    if (node.deprecated === true) {
      const sunset = dateOf(node['x-sunset']);
      const replacedBy = node['x-replaced-by'];
      const replacement = typeof replacedBy === 'string' && replacedBy.trim() !== '' ? replacedBy.trim() : null;
      const reason = [replacement === null ? '' : `Use \`${replacement}\` instead.`, sunset === null ? '' : `Sunset ${sunset}.`].filter(Boolean).join(' ');
      found.push({ api: 'openapi', ...describe(path, node), pointer: pointerOf(path), since: dateOf(node['x-deprecated-since']), sunset, replacement, reason });
    }
    for (const [key, value] of Object.entries(node)) visit(value, [...path, key]);
  };
  visit(document, []);
  return found.sort((a, b) => (a.pointer ?? '').localeCompare(b.pointer ?? ''));
}

/** Every operation of the document that has an operationId, with where it is. */
export function operationsOf(document: unknown): Array<{ operationId: string; route: string; method: string; operation: Record<string, unknown> }> {
  const found: Array<{ operationId: string; route: string; method: string; operation: Record<string, unknown> }> = [];
  const paths = isRecord(document) && isRecord(document.paths) ? document.paths : {};
  for (const [route, item] of Object.entries(paths)) {
    if (!isRecord(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.has(method) && isRecord(operation) && typeof operation.operationId === 'string') found.push({ operationId: operation.operationId, route, method, operation });
    }
  }
  return found;
}

/** operationId → its JSON pointer, to check that `x-replaced-by` names a real operation. */
export function operationIds(document: unknown): Map<string, string> {
  return new Map(operationsOf(document).map(({ operationId, route, method }) => [operationId, pointerOf(['paths', route, method])]));
}
