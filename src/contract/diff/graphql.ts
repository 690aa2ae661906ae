import { CriticalityLevel, diff } from '@graphql-inspector/core';
import type { GraphQLSchema } from 'graphql';
import { requiredScopes } from '../../graphql/scopes.js';
import type { Deprecation } from '../../deprecations/deprecation.js';
import { coordinateOfInspectorPath, graphqlDeprecations, resolvesCoordinate } from '../../deprecations/graphql-deprecations.js';
import type { ContractChange, Severity } from './changes.js';
import { deprecationChanges, removalVerdict } from './deprecation-policy.js';
import { graphqlElements } from './graphql-elements.js';
import { VARIANT_NAMES } from '../../variant.js';
import { schemaOf } from './schemas.js';
import type { ContractSources } from './sources.js';

/**
 * GraphQL changes of the member API, per variant (schema/ is variant B; variant A adds schema/variant-a/), rated by
 * @graphql-inspector/core: BREAKING → breaking, DANGEROUS → dangerous, NON_BREAKING → safe. A change present in both
 * variants is reported once, naming both.
 *
 * The scope a field needs (`@requiresScope(scopes: [...])`, any one of them grants it) is part of the contract: the
 * inspector reports its edits as vague directive-argument changes, so those are replaced by one SCOPE_CHANGED change
 * per field, breaking when a token that was enough before may not be any more.
 *
 * Deprecations follow the policy (deprecation-policy.ts): the inspector's `@deprecated` edits are replaced by one
 * DEPRECATED change per element, and removing a deprecated element is judged against its sunset date.
 */

const SEVERITY: Record<CriticalityLevel, Severity> = {
  [CriticalityLevel.Breaking]: 'breaking',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'safe',
};

type VariantChange = Omit<ContractChange, 'variants'>;

function scopeChange(coordinate: string, before: readonly string[] | undefined, after: readonly string[] | undefined): VariantChange | null {
  const list = (scopes: readonly string[] | undefined) => (scopes === undefined ? 'no scope of its own' : scopes.map((scope) => `\`${scope}\``).join(' or '));
  const same = before !== undefined && after !== undefined && before.length === after.length && before.every((scope) => after.includes(scope));
  if (same || (before === undefined && after === undefined)) return null;
  // Safe only when every scope that granted the field still does; dropping the requirement loosens access: review it.
  const severity: Severity = after === undefined ? 'dangerous' : before !== undefined && before.every((scope) => after.includes(scope)) ? 'safe' : 'breaking';
  return { api: 'graphql', id: `graphql:SCOPE_CHANGED:${coordinate}`, severity, where: coordinate, message: `The scope \`${coordinate}\` needs changed from ${list(before)} to ${list(after)}.` };
}

function isScopeDirectiveChange(path: string | undefined): boolean {
  return path?.includes('.@requiresScope') ?? false;
}

/** `@deprecated` edits: reported once per element by deprecationChanges instead. */
function isDeprecationChange(type: string, path: string | undefined): boolean {
  return type.includes('DEPRECATION') || (path?.includes('.@deprecated') ?? false);
}

function scopeChanges(before: GraphQLSchema, after: GraphQLSchema): VariantChange[] {
  const scopesBefore = requiredScopes(before);
  const scopesAfter = requiredScopes(after);
  const found: VariantChange[] = [];
  // Fields present on both sides only: an added or removed field is a change of its own.
  for (const coordinate of new Set([...scopesBefore.keys(), ...scopesAfter.keys()])) {
    if (!resolvesCoordinate(before, coordinate) || !resolvesCoordinate(after, coordinate)) continue;
    const change = scopeChange(coordinate, scopesBefore.get(coordinate), scopesAfter.get(coordinate));
    if (change) found.push(change);
  }
  return found;
}

async function variantChanges(before: GraphQLSchema, after: GraphQLSchema, today: string): Promise<VariantChange[]> {
  const deprecatedBefore = new Map(graphqlDeprecations(before).map((deprecation) => [deprecation.key, deprecation]));
  const found: VariantChange[] = (await diff(before, after))
    .filter((change) => !isScopeDirectiveChange(change.path) && !isDeprecationChange(change.type, change.path))
    .map((change) => {
      const where = change.path ?? '(schema)';
      const rated: VariantChange = { api: 'graphql', id: `graphql:${change.type}:${where}`, severity: SEVERITY[change.criticality.level], where, message: change.message };
      if (change.type.includes('DESCRIPTION')) rated.documentationOnly = true;
      return change.type.endsWith('_REMOVED') ? removalVerdict(rated, deprecatedBefore.get(coordinateOfInspectorPath(change.type, where)), today) : rated;
    });
  found.push(...scopeChanges(before, after));
  found.push(
    ...deprecationChanges([...deprecatedBefore.values()], graphqlDeprecations(after), {
      today,
      identity: (deprecation: Deprecation) => deprecation.key,
      idOf: (kind, deprecation) => `graphql:${kind === 'deprecated' ? 'DEPRECATED' : 'DEPRECATION_REMOVED'}:${deprecation.key}`,
      existsAfter: (deprecation) => resolvesCoordinate(after, deprecation.key),
    }),
  );
  return found;
}

export async function graphqlChanges(base: ContractSources, head: ContractSources, options: { today: string }): Promise<ContractChange[]> {
  const byId = new Map<string, ContractChange>();
  for (const variant of VARIANT_NAMES) {
    const before = schemaOf(base, variant);
    const after = schemaOf(head, variant);
    if (before === null || after === null) continue;
    for (const change of await variantChanges(before, after, options.today)) {
      const known = byId.get(change.id);
      if (known) known.variants?.push(variant);
      else byId.set(change.id, { ...change, variants: [variant] });
    }
  }
  for (const change of byId.values()) {
    const [, kind = ''] = change.id.split(':');
    const elements = graphqlElements(kind, change.where);
    if (elements.length > 0) change.elements = elements;
  }
  return [...byId.values()];
}
