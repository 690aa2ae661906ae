import type { DocumentNode, GraphQLSchema } from 'graphql';
import { graphqlCatalog, type KnownDeprecation } from '../deprecations/catalog.js';
import { CoordinateTracker, type OperationCoordinates } from './coordinates.js';

/**
 * Which deprecated elements of the member schema a request uses (docs/versioning.md, "How clients are told"): the
 * request's schema coordinates (src/graphql/coordinates.ts), filtered by the schema's deprecations. The document's part
 * is filtered once per document and operation; the variables' part only when the schema deprecates an input field or
 * an enum value.
 */
export interface DeprecationTracker {
  usedBy(document: DocumentNode, operationName: string | null | undefined, variables: Readonly<Record<string, unknown>>): KnownDeprecation[];
  /** The same, for coordinates already worked out (the member API counts them for its usage, too). */
  usedIn(coordinates: OperationCoordinates, inVariables: readonly string[] | null): readonly KnownDeprecation[];
}

const NOTHING: readonly KnownDeprecation[] = Object.freeze([]);

/** Null when the schema deprecates nothing: then no request pays for looking. */
export function deprecationTracker(schema: GraphQLSchema, tracker: CoordinateTracker = new CoordinateTracker(schema)): DeprecationTracker | null {
  const catalog = graphqlCatalog(schema);
  if (catalog.size === 0) return null;
  const inDocument = new WeakMap<OperationCoordinates, readonly KnownDeprecation[]>();
  const deprecatedIn = (coordinates: readonly string[]): KnownDeprecation[] => coordinates.filter((coordinate) => catalog.has(coordinate)).map((coordinate) => catalog.get(coordinate) as KnownDeprecation);

  function usedIn(coordinates: OperationCoordinates, inVariables: readonly string[] | null): readonly KnownDeprecation[] {
    let found = inDocument.get(coordinates);
    if (!found) {
      found = deprecatedIn(coordinates.inDocument);
      inDocument.set(coordinates, found.length === 0 ? NOTHING : found);
    }
    if (inVariables === null) return found;
    const fromVariables = deprecatedIn(inVariables);
    if (fromVariables.length === 0) return found;
    const merged = new Map([...found, ...fromVariables].map((deprecation) => [deprecation.element, deprecation]));
    return [...merged.keys()].sort().map((element) => merged.get(element) as KnownDeprecation);
  }

  return {
    usedIn,
    usedBy(document, operationName, variables) {
      const coordinates = tracker.of(document, tracker.operationOf(document, operationName));
      return [...usedIn(coordinates, tracker.inVariables(coordinates, variables))];
    },
  };
}
