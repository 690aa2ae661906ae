import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { countDeprecatedUses } from '../deprecations/usage.js';
import type { Services } from '../services.js';
import { elementBundle, recordUse, usageBundle, type UsageBundle } from '../usage/tally.js';
import { CoordinateTracker, type OperationCoordinates } from './coordinates.js';
import { deprecationTracker } from './deprecations.js';

/** The operation that ran, as graphql-http hands it to onOperation. */
export interface ExecutedOperation {
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Readonly<Record<string, unknown>> | null;
}

/** Who made the call, for the count. */
export interface OperationCaller {
  siteId: number;
  /** oauth_clients.id of the token's client. */
  clientRef: number;
}

/**
 * What the member API does with an operation that ran: its schema coordinates are counted for the caller's client
 * (docs/usage.md; in memory, the usage flush job writes them, so nothing is written on the member's request), and an
 * answer that used a deprecated element names it, its sunset and its replacement under `extensions.deprecations`
 * (docs/versioning.md, "How clients are told").
 *
 * Only operations that ran are counted: an answer without `data` is a request error (a variable that does not fit its
 * type), raised before execution (GraphQL, "Response Format"); refused documents never get here.
 */
export type OperationNotice = (operation: ExecutedOperation, result: ExecutionResult, caller: OperationCaller) => ExecutionResult;

export function operationNotice(services: Pick<Services, 'db' | 'metrics'>, schema: GraphQLSchema): OperationNotice {
  const coordinates = new CoordinateTracker(schema);
  const deprecations = deprecationTracker(schema, coordinates);
  const bundles = new WeakMap<OperationCoordinates, UsageBundle>();
  const bundleOf = (found: OperationCoordinates): UsageBundle => {
    let bundle = bundles.get(found);
    if (!bundle) {
      bundle = usageBundle('graphql', found.inDocument);
      bundles.set(found, bundle);
    }
    return bundle;
  };

  return ({ document, operationName, variableValues }, result, { siteId, clientRef }) => {
    if (!('data' in result)) return result;
    const found = coordinates.of(document, coordinates.operationOf(document, operationName));
    // One counter for the document's coordinates; the variables' own (rare) one by one.
    recordUse(services.db, siteId, clientRef, bundleOf(found));
    const inVariables = coordinates.inVariables(found, variableValues ?? {});
    if (inVariables !== null) {
      for (const coordinate of inVariables) {
        if (!found.inDocument.includes(coordinate)) recordUse(services.db, siteId, clientRef, elementBundle('graphql', coordinate));
      }
    }
    if (deprecations === null) return result;
    const used = deprecations.usedIn(found, inVariables);
    if (used.length === 0) return result;
    countDeprecatedUses(services.metrics, 'graphql', used.map((deprecation) => deprecation.element));
    return {
      ...result,
      extensions: { ...result.extensions, deprecations: used.map(({ element, sunset, replacement }) => ({ coordinate: element, sunset, replacement })) },
    };
  };
}
