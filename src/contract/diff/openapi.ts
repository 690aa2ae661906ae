import { apiCompare, type Diff } from 'api-smart-diff';
import { parse } from 'yaml';
import type { Deprecation } from '../../deprecations/deprecation.js';
import { openapiDeprecations } from '../../deprecations/openapi-deprecations.js';
import type { ContractChange } from './changes.js';
import { deprecationChanges, removalVerdict } from './deprecation-policy.js';
import { nameOfPointer, namedLocationExists, pointerOf } from './openapi-locations.js';
import { groupDiffs, METHODS, operationWhere, requiredEntry, type DiffRow } from './openapi-rows.js';
import { UsageError, type ContractSources } from './sources.js';

/**
 * Changes of the admin API contract (openapi/admin.yaml), rated by api-smart-diff, which resolves `$ref`s and judges
 * each change from the client's side (removed operations or response fields, parameters that became required,
 * narrowed request enums are breaking). Only what an operation reaches counts (`paths`), plus the OAuth scopes
 * (`components.securitySchemes`).
 *
 * One row per edit (openapi-rows.ts): an edit of a shared schema is one change naming every operation it reaches,
 * with the id `openapi:<action>:<location>`, the location named without array positions (openapi-locations.ts):
 * `openapi:remove:/components/schemas/Course/properties/slug`, `openapi:add:/components/schemas/Kind/enum[draft]`.
 *
 * Deprecations follow the policy (deprecation-policy.ts): the edits of `deprecated`, `x-deprecated-since`, `x-sunset`
 * and `x-replaced-by` become one `deprecated` change per element, and removing a deprecated element is judged against
 * its sunset date.
 */

const DEPRECATION_KEYS = new Set(['deprecated', 'x-deprecated-since', 'x-sunset', 'x-replaced-by']);

/** One side's openapi/admin.yaml, parsed; null when that side has none. */
export function openapiDocumentOf(sources: ContractSources): unknown {
  if (sources.openapi === null) return null;
  try {
    return parse(sources.openapi);
  } catch (error) {
    throw new UsageError(`openapi/admin.yaml of ${sources.label} is not YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function show(value: unknown): string {
  return typeof value === 'string' ? `\`${value}\`` : `\`${JSON.stringify(value)}\``;
}

/** The message api-smart-diff gives operations, scopes and security requirements, said plainly. */
function operationMessage(diff: Diff, where: string): string | null {
  if (diff.path.includes('security')) {
    if (diff.action === 'replace') return `The scope ${where} requires changed from ${show(diff.before)} to ${show(diff.after)}.`;
    if (diff.action === 'add') return `${where} now also requires ${show(diff.after)}.`;
    if (diff.action === 'remove') return `${where} no longer requires ${show(diff.before)}.`;
  }
  if (diff.path[0] === 'components' && diff.path[1] === 'securitySchemes' && diff.path.includes('scopes')) {
    const scope = String(diff.path.at(-1));
    if (diff.action === 'remove') return `The scope \`${scope}\` was removed from the OAuth scheme.`;
    if (diff.action === 'add') return `The scope \`${scope}\` was added to the OAuth scheme.`;
  }
  const [section, , method] = diff.path;
  if (section === 'paths' && diff.path.length === 3 && typeof method === 'string' && METHODS.has(method) && (diff.action === 'add' || diff.action === 'remove')) {
    const operation = (diff.action === 'add' ? diff.after : diff.before) as { operationId?: unknown; summary?: unknown } | undefined;
    const name = typeof operation?.operationId === 'string' ? ` \`${operation.operationId}\`` : '';
    if (diff.action === 'remove') return `The operation${name} was removed.`;
    return `New operation${name}${typeof operation?.summary === 'string' ? `: ${operation.summary}` : ''}.`;
  }
  return null;
}

/** A component's name and the property chain inside it: `OAuthApplication.redirectUris`, `Course.tags[]`. */
function componentWhere(segments: readonly string[]): string {
  let where = segments[2] ?? segments.join('.');
  for (let index = 3; index < segments.length; index += 1) {
    const segment = segments[index] ?? '';
    const property = requiredEntry(segment);
    if (segment === 'properties' && index + 1 < segments.length) where += `.${segments[(index += 1)] ?? ''}`;
    else if (segment === 'items') where += '[]';
    else if (property !== null && index === segments.length - 1) where += `.${property}`;
    else break;
  }
  return where;
}

/** The parameter a `…/required` location belongs to: a shared one (`components/parameters/Limit`) or one inline in an operation. */
function parameterName(segments: readonly string[]): string | null {
  if (segments[1] === 'parameters' && segments.length === 4) return `The parameter \`${segments[2] ?? ''}\``;
  const inline = /^parameters\[([^:]*):(.*)\]$/.exec(segments.at(-2) ?? '');
  return inline === null ? null : `The ${inline[1] ?? ''} parameter \`${inline[2] ?? ''}\``;
}

function whereOf(row: DiffRow): string {
  const { segments } = row.location;
  if (segments[0] === 'paths') return operationWhere(segments);
  if (segments[1] === 'securitySchemes') return segments.slice(0, 3).join('.');
  return componentWhere(segments);
}

/** What the edit did, in words that hold for every operation it reaches. */
function editMessage(row: DiffRow, where: string): string {
  const { segments } = row.location;
  const last = segments.at(-1) ?? '';
  const verb = row.action === 'add' ? 'Added' : row.action === 'remove' ? 'Removed' : 'Changed';
  const [first] = row.diffs;
  if (segments.at(-2) === 'properties') {
    const owner = componentWhere(segments.slice(0, -2));
    return `${verb} ${row.required ? 'required ' : ''}property \`${last}\` ${row.action === 'add' ? 'to' : row.action === 'remove' ? 'of' : 'of'} \`${segments[0] === 'paths' ? where : owner}\`.`;
  }
  const parameter = last === 'required' ? parameterName(segments) : null;
  if (parameter !== null && first !== undefined) return `${parameter} ${first.after === true ? 'is now required' : 'is no longer required'}.`;
  const required = requiredEntry(last);
  if (required !== null && row.action !== 'replace') return `\`${required}\` ${row.action === 'add' ? 'is now required' : 'is no longer required'} in \`${where.slice(0, where.lastIndexOf('.')) || where}\`.`;
  const member = /^(enum|parameters)\[(.*)\]$/.exec(last);
  if (member?.[1] === 'enum' && row.action !== 'replace') return `${verb} the value ${show(member[2])} ${row.action === 'add' ? 'to' : 'from'} \`${where}\`.`;
  if (member?.[1] === 'parameters' && row.action !== 'replace') {
    const [place, ...name] = (member[2] ?? '').split(':');
    return `${verb} the ${place} parameter \`${name.join(':')}\`.`;
  }
  // Inline in one operation: api-smart-diff's own description reads well ("[Removed] property … from data[]").
  const described = first?.description?.replace(/^\[([^\]]*)\]\s*/, '$1 ');
  if (segments[0] === 'paths' && described !== undefined && !described.includes('annotation (')) return described;
  // Prose (a description) is reviewed in the contract's own diff; repeating both versions here only buries the row.
  const brief = (value: unknown) => typeof value !== 'object' && String(value).length <= 60;
  if (row.action === 'replace' && first !== undefined && brief(first.before) && brief(first.after)) return `Changed \`${last}\` of \`${where}\` from ${show(first.before)} to ${show(first.after)}.`;
  if (row.action === 'replace') return `Changed \`${last}\` of \`${where}\`.`;
  return `${verb} \`${last}\` ${row.action === 'add' ? 'to' : 'of'} \`${where}\`.`;
}

function rowMessage(row: DiffRow, where: string): string {
  const [first] = row.diffs;
  const plain = first === undefined ? null : operationMessage(first, where);
  const message = plain ?? editMessage(row, where);
  // A shared component: name every operation the one edit reaches.
  const reaches = row.location.segments[0] !== 'paths' && row.operations.length > 0 ? ` Reaches ${row.operations.map((operation) => `\`${operation}\``).join(', ')}.` : '';
  return `${message}${reaches}`;
}

/** The deprecation a removal takes away: the element's own, or the latest of a path whose operations all were. */
function deprecationRemoved(row: DiffRow, before: Record<string, unknown>, deprecations: ReadonlyMap<string, Deprecation>): Deprecation | undefined {
  const own = row.location.pointer === null ? undefined : deprecations.get(row.location.pointer);
  const { segments } = row.location;
  if (own !== undefined || segments.length !== 2 || segments[0] !== 'paths') return own;
  const item = (before.paths as Record<string, Record<string, unknown>> | undefined)?.[String(segments[1])] ?? {};
  const operations = Object.keys(item)
    .filter((method) => METHODS.has(method))
    .map((method) => deprecations.get(pointerOf([...segments, method])));
  if (operations.length === 0 || operations.some((operation) => operation?.sunset === null || operation?.sunset === undefined)) return undefined;
  return (operations as Deprecation[]).reduce((latest, operation) => ((operation.sunset ?? '') > (latest.sunset ?? '') ? operation : latest));
}

/** Deprecations named like the changes (array members by name), so that they survive unrelated edits too. */
function namedDeprecations(document: unknown): Deprecation[] {
  return openapiDeprecations(document).map((deprecation) => {
    if (deprecation.pointer === undefined || deprecation.pointer === null) return deprecation;
    const named = nameOfPointer(document, deprecation.pointer);
    return { ...deprecation, pointer: named, ...(deprecation.where === deprecation.pointer ? { where: named } : {}) };
  });
}

export function openapiChanges(base: ContractSources, head: ContractSources, options: { today: string }): ContractChange[] {
  const before = openapiDocumentOf(base);
  const after = openapiDocumentOf(head);
  if (before === null || after === null) return [];
  const deprecatedBefore = openapiDeprecations(before);
  const byPointer = new Map(deprecatedBefore.map((deprecation) => [deprecation.pointer ?? '', deprecation]));
  // A symbol for api-smart-diff's annotations in the merged document, so they never pass for a key of the contract.
  // Copies: api-smart-diff rewrites the documents it is given (it moves a schema's description into its `oneOf`
  // alternatives), and the originals must stay as written to name where each edit was made.
  const { diffs, merged } = apiCompare(structuredClone(before), structuredClone(after), { metaKey: Symbol('diff') });
  const reported = diffs
    .filter((diff) => diff.path[0] === 'paths' || (diff.path[0] === 'components' && diff.path[1] === 'securitySchemes'))
    .filter((diff) => !DEPRECATION_KEYS.has(String(diff.path.at(-1))));
  const changes = groupDiffs(reported, { before, after, merged: merged as unknown }).map((row): ContractChange => {
    const where = whereOf(row);
    const change: ContractChange = { api: 'openapi', id: `openapi:${row.action}:${row.location.named}`, severity: row.severity, where, message: rowMessage(row, where) };
    if (row.elements.length > 0) change.elements = row.elements;
    if (row.documentationOnly) change.documentationOnly = true;
    return row.action === 'remove' ? removalVerdict(change, deprecationRemoved(row, before as Record<string, unknown>, byPointer), options.today) : change;
  });
  const namedAfter = namedDeprecations(after);
  const pointersAfter = new Set(namedAfter.map((deprecation) => deprecation.pointer));
  changes.push(
    ...deprecationChanges(namedDeprecations(before), namedAfter, {
      today: options.today,
      identity: (deprecation) => deprecation.pointer ?? deprecation.key,
      idOf: (kind, deprecation) => `openapi:${kind}:${deprecation.pointer ?? deprecation.key}`,
      // Still there after (only its deprecation withdrawn) when the head has the element at the same named location.
      existsAfter: (deprecation) => pointersAfter.has(deprecation.pointer) || namedLocationExists(after, deprecation.pointer ?? ''),
    }),
  );
  return changes;
}

