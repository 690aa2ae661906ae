import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { requiredScopes } from '../../graphql/scopes.js';
import type { ContractChange, Severity } from './changes.js';
import { UsageError, type ContractSources } from './sources.js';

/**
 * GraphQL changes of the member API, per variant (schema/ is variant B; variant A adds schema/variant-a/), rated by
 * @graphql-inspector/core: BREAKING → breaking, DANGEROUS → dangerous, NON_BREAKING → safe. A change present in both
 * variants is reported once, naming both.
 *
 * The scope a field needs (`@requiresScope(scopes: [...])`, any one of them grants it) is part of the contract: the
 * inspector reports its edits as vague directive-argument changes, so those are replaced by one SCOPE_CHANGED change
 * per field, breaking when a token that was enough before may not be any more.
 */

const VARIANTS = { A: (file: string) => !file.slice('schema/'.length).includes('/') || file.startsWith('schema/variant-a/'), B: (file: string) => !file.slice('schema/'.length).includes('/') } as const;

function schemaOf(sources: ContractSources, variant: keyof typeof VARIANTS): GraphQLSchema | null {
  const typeDefs = [...sources.graphqlFiles].filter(([file]) => VARIANTS[variant](file)).map(([, text]) => text);
  if (typeDefs.length === 0) return null;
  try {
    return makeExecutableSchema({ typeDefs });
  } catch (error) {
    throw new UsageError(`the GraphQL schema (variant ${variant}) of ${sources.label} does not build: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const SEVERITY: Record<CriticalityLevel, Severity> = {
  [CriticalityLevel.Breaking]: 'breaking',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'safe',
};

function scopeChange(coordinate: string, before: readonly string[] | undefined, after: readonly string[] | undefined): Omit<ContractChange, 'variants'> | null {
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

export async function graphqlChanges(base: ContractSources, head: ContractSources): Promise<ContractChange[]> {
  const byId = new Map<string, ContractChange>();
  for (const variant of ['A', 'B'] as const) {
    const before = schemaOf(base, variant);
    const after = schemaOf(head, variant);
    if (before === null || after === null) continue;
    const found: Array<Omit<ContractChange, 'variants'>> = (await diff(before, after))
      .filter((change) => !isScopeDirectiveChange(change.path))
      .map((change) => {
        const where = change.path ?? '(schema)';
        return { api: 'graphql', id: `graphql:${change.type}:${where}`, severity: SEVERITY[change.criticality.level], where, message: change.message };
      });
    const scopesBefore = requiredScopes(before);
    const scopesAfter = requiredScopes(after);
    // Fields present on both sides only: an added or removed field is a change of its own.
    for (const coordinate of new Set([...scopesBefore.keys(), ...scopesAfter.keys()])) {
      const [typeName = '', fieldName = ''] = coordinate.split('.');
      const exists = (schema: GraphQLSchema) => {
        const type = schema.getType(typeName);
        return type !== undefined && 'getFields' in type && Object.hasOwn(type.getFields(), fieldName);
      };
      if (!exists(before) || !exists(after)) continue;
      const change = scopeChange(coordinate, scopesBefore.get(coordinate), scopesAfter.get(coordinate));
      if (change) found.push(change);
    }
    for (const change of found) {
      const known = byId.get(change.id);
      if (known) known.variants?.push(variant);
      else byId.set(change.id, { ...change, variants: [variant] });
    }
  }
  return [...byId.values()];
}
