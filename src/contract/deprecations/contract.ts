import type { GraphQLSchema } from 'graphql';
import { openapiDocumentOf } from '../diff/openapi.js';
import { VARIANT_NAMES } from '../../variant.js';
import { schemaOf } from '../diff/schemas.js';
import type { ContractSources } from '../diff/sources.js';
import { addMonths, MINIMUM_NOTICE_MONTHS, type Deprecation } from '../../deprecations/deprecation.js';
import { graphqlDeprecations, resolvesCoordinate } from '../../deprecations/graphql-deprecations.js';
import { openapiDeprecations, operationIds } from '../../deprecations/openapi-deprecations.js';

/**
 * The deprecations of a whole contract (both member API variants and the admin API), and what the lint
 * (`npm run lint:deprecations`) finds wrong with them: each needs a sunset date and a replacement that exists.
 */

export interface ContractDeprecations {
  deprecations: Deprecation[];
  /** One sentence per incomplete deprecation; empty when the contract follows the convention. */
  problems: string[];
}

const GRAPHQL_FORM = 'the reason must read `Use Type.field instead. Sunset YYYY-MM-DD.`';
const OPENAPI_FORM = 'add `x-sunset: YYYY-MM-DD` and `x-replaced-by: <operationId>` next to `deprecated: true`';
const OPERATION_FORM = 'an operation also gives `x-deprecated-since: YYYY-MM-DD`, the day its deprecation takes effect';

function graphqlProblems(deprecation: Deprecation, schema: GraphQLSchema, variant: string, deprecatedKeys: ReadonlySet<string>): string[] {
  const subject = `GraphQL \`${deprecation.key}\` (variant ${variant})`;
  const problems: string[] = [];
  if (deprecation.sunset === null) problems.push(`${subject} is deprecated without a valid sunset date: ${GRAPHQL_FORM}`);
  if (deprecation.replacement === null) problems.push(`${subject} is deprecated without naming its replacement: ${GRAPHQL_FORM}`);
  else if (!resolvesCoordinate(schema, deprecation.replacement)) problems.push(`${subject} names the replacement \`${deprecation.replacement}\`, which variant ${variant} does not have`);
  else if (deprecatedKeys.has(deprecation.replacement)) problems.push(`${subject} names the replacement \`${deprecation.replacement}\`, which is deprecated too`);
  return problems;
}

function openapiProblems(deprecation: Deprecation, operations: ReadonlyMap<string, string>, deprecatedPointers: ReadonlySet<string>): string[] {
  const subject = `admin API \`${deprecation.where}\``;
  const problems: string[] = [];
  if (deprecation.sunset === null) problems.push(`${subject} is deprecated without a valid \`x-sunset\` date: ${OPENAPI_FORM}`);
  if (deprecation.replacement === null) problems.push(`${subject} is deprecated without \`x-replaced-by\`: ${OPENAPI_FORM}`);
  // A parameter or property names its replacement in words; an operation is replaced by another operation, which must
  // exist and stay, and says when its deprecation took effect.
  if (deprecation.key === deprecation.pointer) return problems;
  problems.push(...sinceProblems(deprecation, subject));
  if (deprecation.replacement !== null) {
    const pointer = operations.get(deprecation.replacement);
    if (pointer === undefined) problems.push(`${subject} names \`x-replaced-by: ${deprecation.replacement}\`, which is not an operationId of the document`);
    else if (deprecatedPointers.has(pointer)) problems.push(`${subject} names \`x-replaced-by: ${deprecation.replacement}\`, which is deprecated too`);
  }
  return problems;
}

/** An operation's responses announce when its deprecation took effect, at least the minimum notice before its sunset. */
function sinceProblems(deprecation: Deprecation, subject: string): string[] {
  if (deprecation.since === null || deprecation.since === undefined) return [`${subject} is deprecated without a valid \`x-deprecated-since\` date: ${OPERATION_FORM}`];
  if (deprecation.sunset !== null && addMonths(deprecation.since, MINIMUM_NOTICE_MONTHS) > deprecation.sunset) {
    return [`${subject} has \`x-sunset: ${deprecation.sunset}\`, less than ${MINIMUM_NOTICE_MONTHS} months after \`x-deprecated-since: ${deprecation.since}\``];
  }
  return [];
}

export function contractDeprecations(sources: ContractSources): ContractDeprecations {
  const byKey = new Map<string, Deprecation>();
  const problems: string[] = [];
  for (const variant of VARIANT_NAMES) {
    const schema = schemaOf(sources, variant);
    if (schema === null) continue;
    const found = graphqlDeprecations(schema);
    const keys = new Set(found.map((deprecation) => deprecation.key));
    for (const deprecation of found) {
      problems.push(...graphqlProblems(deprecation, schema, variant, keys));
      const known = byKey.get(deprecation.key);
      if (known) known.variants?.push(variant);
      else byKey.set(deprecation.key, { ...deprecation, variants: [variant] });
    }
  }
  const document = openapiDocumentOf(sources);
  const openapi = document === null ? [] : openapiDeprecations(document);
  const operations = operationIds(document);
  const pointers = new Set(openapi.map((deprecation) => deprecation.pointer ?? ''));
  for (const deprecation of openapi) problems.push(...openapiProblems(deprecation, operations, pointers));
  return { deprecations: [...byKey.values(), ...openapi], problems: [...new Set(problems)] };
}
