import { adminCatalog, type KnownDeprecation } from '../../deprecations/catalog.js';
import { operationsOf } from '../../deprecations/openapi-deprecations.js';
import { DOCS_PATHS } from '../../docs/paths.js';

/**
 * What every response of a deprecated admin operation says about it (docs/versioning.md, "How clients are told"):
 * - `Deprecation: @<seconds>` (RFC 9745 2): the day the deprecation took effect, `x-deprecated-since`;
 * - `Sunset: <HTTP-date>` (RFC 8594 3): the first day the operation may be gone, `x-sunset`;
 * - `Link`: the operation's reference as `rel="deprecation"` (RFC 9745 3) and the replacement's as
 *   `rel="successor-version"` (RFC 5829), both in the site's API reference.
 */
export interface DeprecatedOperation {
  deprecation: KnownDeprecation;
  /** The three headers, for a response on `origin`. */
  headers(origin: string): Record<string, string>;
}

/** operationId → its first tag: the reference page's deep link is `#/<tag>/<operationId>`. */
function tagsOf(document: unknown): Map<string, string> {
  const tags = new Map<string, string>();
  for (const { operationId, operation } of operationsOf(document)) {
    const [tag] = Array.isArray(operation.tags) ? operation.tags : [];
    if (typeof tag === 'string') tags.set(operationId, tag);
  }
  return tags;
}

function startOfDay(day: string): Date {
  return new Date(`${day}T00:00:00Z`);
}

/** The deprecated operations of an admin contract with the headers their responses carry. */
export function deprecatedOperations(document: unknown): Map<string, DeprecatedOperation> {
  const tags = tagsOf(document);
  const reference = (origin: string, operationId: string) => {
    const tag = tags.get(operationId);
    return `${origin}${DOCS_PATHS.adminApi}${tag === undefined ? '' : `#/${encodeURIComponent(tag)}/${encodeURIComponent(operationId)}`}`;
  };
  const operations = new Map<string, DeprecatedOperation>();
  for (const deprecation of adminCatalog(document).values()) {
    const fixed: Record<string, string> = {};
    // The lint refuses a deprecated operation without these dates; a contract that skipped the lint still gets the rest.
    if (deprecation.since !== null) fixed.Deprecation = `@${startOfDay(deprecation.since).getTime() / 1000}`;
    if (deprecation.sunset !== null) fixed.Sunset = startOfDay(deprecation.sunset).toUTCString();
    operations.set(deprecation.element, {
      deprecation,
      headers(origin) {
        const links = [`<${reference(origin, deprecation.element)}>; rel="deprecation"; type="text/html"`];
        if (deprecation.replacement !== null) links.push(`<${reference(origin, deprecation.replacement)}>; rel="successor-version"; type="text/html"`);
        return { ...fixed, Link: links.join(', ') };
      },
    });
  }
  return operations;
}
