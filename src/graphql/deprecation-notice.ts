import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { recordDeprecatedUses, type UsingClient } from '../deprecations/usage.js';
import type { Services } from '../services.js';
import type { Logger } from '../shared/logger.js';
import { deprecationTracker } from './deprecations.js';

/** The operation that ran, as graphql-http hands it to onOperation. */
export interface ExecutedOperation {
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Readonly<Record<string, unknown>> | null;
}

/** Who made the call, for the count. */
export interface DeprecationCaller {
  siteId: number;
  client: UsingClient;
  log: Logger;
}

/**
 * The deprecation notice (docs/versioning.md, "How clients are told"): an answer that used a deprecated element names
 * it, its sunset and its replacement under `extensions.deprecations`, and the call is counted for the site's
 * operators. Null when the schema deprecates nothing, so no request pays for looking.
 */
export type DeprecationNotice = (operation: ExecutedOperation, result: ExecutionResult, caller: DeprecationCaller) => Promise<ExecutionResult>;

export function deprecationNotice(services: Pick<Services, 'db' | 'metrics'>, schema: GraphQLSchema): DeprecationNotice | null {
  const deprecations = deprecationTracker(schema);
  if (deprecations === null) return null;
  return async ({ document, operationName, variableValues }, result, { siteId, client, log }) => {
    const used = deprecations.usedBy(document, operationName, variableValues ?? {});
    if (used.length === 0) return result;
    // Counted in memory; the usage flush job writes it (nothing is written on the member's request).
    recordDeprecatedUses({ db: services.db, metrics: services.metrics, log }, { siteId, client, api: 'graphql', elements: used.map((deprecation) => deprecation.element) });
    return {
      ...result,
      extensions: { ...result.extensions, deprecations: used.map(({ element, sunset, replacement }) => ({ coordinate: element, sunset, replacement })) },
    };
  };
}
