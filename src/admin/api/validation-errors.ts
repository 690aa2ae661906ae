import type { ErrorObject } from 'ajv';
import type { ProblemError } from './problems.js';

/**
 * openapi-backend's Ajv errors as the contract's `errors[]` (docs/admin-api.md, Errors): `/requestBody/x` becomes the
 * JSON pointer `/x`; `/query/limit`, `/path/clientId` and `/header/if-match` become the parameter `limit`, `clientId`
 * and `If-Match`. An unknown member or parameter is reported at its own location, a missing one at where it belongs.
 * The branch noise of a nullable `oneOf` is folded into one message ("must be string or null") unless one branch had
 * the right type, whose own errors are then the ones that matter.
 */

type Location = { pointer: string } | { parameter: string };

export interface ValidationFailure {
  errors: ProblemError[];
  /** The request lacks a required header parameter of this name (If-Match: 428, not 400). */
  missingHeaders: string[];
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** A member named by `additionalProperty` / `missingProperty`, appended to the error's own location. */
function childOf(instancePath: string, error: ErrorObject): string {
  const params = error.params as { additionalProperty?: unknown; missingProperty?: unknown };
  const child = error.keyword === 'additionalProperties' ? params.additionalProperty : error.keyword === 'required' ? params.missingProperty : undefined;
  return typeof child === 'string' ? `${instancePath}/${escapePointerToken(child)}` : instancePath;
}

function locate(path: string, headerNames: ReadonlyMap<string, string>): Location {
  if (path === '/requestBody' || path.startsWith('/requestBody/')) return { pointer: path.slice('/requestBody'.length) };
  const [, area = '', first = '', ...rest] = path.split('/');
  if (area === 'query' || area === 'path' || area === 'header' || area === 'cookie') {
    const name = unescapePointerToken(first);
    const parameter = area === 'header' ? (headerNames.get(name.toLowerCase()) ?? name) : name;
    return { parameter: rest.length > 0 ? `${parameter}/${rest.join('/')}` : parameter };
  }
  return { pointer: '' };
}

function messageOf(error: ErrorObject, location: Location): string {
  if (error.keyword === 'additionalProperties') return 'parameter' in location ? 'is not a parameter of this operation' : 'is not a known member; unknown members are refused';
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues?: unknown }).allowedValues;
    if (Array.isArray(allowed) && allowed.length <= 8) return `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
  }
  if (error.keyword === 'parse') return `is not valid JSON: ${error.message ?? 'parse error'}`;
  return error.message ?? 'is not valid';
}

/** `#/…/oneOf/2/type` → the oneOf's schema path and the branch index. */
function oneOfBranch(schemaPath: string): { oneOf: string; branch: number } | null {
  const match = /^(.*\/oneOf)\/(\d+)(?:\/|$)/.exec(schemaPath);
  return match?.[1] !== undefined && match[2] !== undefined ? { oneOf: match[1], branch: Number(match[2]) } : null;
}

function foldOneOf(errors: readonly ErrorObject[]): ErrorObject[] {
  const oneOfErrors = errors.filter((error) => error.keyword === 'oneOf');
  if (oneOfErrors.length === 0) return [...errors];
  const dropped = new Set<ErrorObject>();
  const added: ErrorObject[] = [];
  for (const oneOf of oneOfErrors) {
    const branches = new Map<number, ErrorObject[]>();
    for (const error of errors) {
      const branch = oneOfBranch(error.schemaPath);
      if (branch?.oneOf !== oneOf.schemaPath) continue;
      branches.set(branch.branch, [...(branches.get(branch.branch) ?? []), error]);
    }
    if (branches.size === 0) continue;
    dropped.add(oneOf);
    for (const list of branches.values()) for (const error of list) dropped.add(error);
    const isTypeMismatch = (list: ErrorObject[]) => list.length === 1 && list[0]?.keyword === 'type' && list[0].instancePath === oneOf.instancePath;
    const relevant = [...branches.values()].find((list) => !isTypeMismatch(list));
    if (relevant) {
      added.push(...relevant);
    } else {
      const types = [...branches.values()].map((list) => String((list[0]?.params as { type?: unknown }).type ?? 'valid'));
      added.push({ ...oneOf, keyword: 'type', message: `must be ${[...new Set(types)].join(' or ')}` });
    }
  }
  return [...errors.filter((error) => !dropped.has(error)), ...added];
}

export function validationFailure(errors: readonly ErrorObject[], headerParameters: readonly string[]): ValidationFailure {
  const headerNames = new Map(headerParameters.map((name) => [name.toLowerCase(), name]));
  const missingHeaders: string[] = [];
  const seen = new Set<string>();
  const result: ProblemError[] = [];
  for (const error of foldOneOf(errors)) {
    if (error.instancePath === '/header' && error.keyword === 'required') {
      const missing = (error.params as { missingProperty?: unknown }).missingProperty;
      if (typeof missing === 'string') missingHeaders.push(headerNames.get(missing.toLowerCase()) ?? missing);
    }
    const location = locate(childOf(error.instancePath, error), headerNames);
    const entry: ProblemError = { ...location, message: messageOf(error, location) };
    const key = JSON.stringify(entry);
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(entry);
  }
  return { errors: result, missingHeaders };
}
