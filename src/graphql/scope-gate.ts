import type { Response as HttpResponse } from 'graphql-http';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Scope } from '../clients/scopes.js';
import { requireAnyScope, type VerifiedToken } from '../oauth/bearer.js';
import { bearerChallenge } from '../oauth/errors.js';
import type { Site } from '../sites/sites.js';
import type { VariantProfile } from '../variant.js';
import { scopesNeededBy, type ScopeMap } from './scopes.js';

export const ACCOUNT_SCOPES = ['account:read', 'account:write'] as const;

/**
 * Where the member API refuses a token for its scopes (spec: Errors), as the variant profile's `scopeGate` says.
 * - `per-field`: the token needs one of the two account scopes (403 insufficient_scope before anything else); a field
 *   needing the other is a GraphQL `errors` entry with HTTP 200 (@requiresScope, src/graphql/scopes.ts).
 * - `before-execution`: a document selecting any field the token's scopes do not cover is HTTP 403 insufficient_scope.
 */
export interface ScopeGate {
  /** At authentication: throws InsufficientScopeError when the token cannot use the member API at all. */
  admitToken(site: Site, verified: VerifiedToken): void;
  /** Before execution: the 403 answer for a document the token's scopes do not cover, or null to execute it. */
  refusal(site: Site, document: DocumentNode, scopes: readonly Scope[]): HttpResponse | null;
}

/** The 403 with the OAuth error and a GraphQL `errors` entry, so either kind of client reads it. */
function insufficientScope(site: Site, missing: readonly string[]): HttpResponse {
  const description = `this request needs the scope ${missing.join(' or ')}`;
  return [
    JSON.stringify({ error: 'insufficient_scope', error_description: description, errors: [{ message: description, extensions: { code: 'insufficient_scope' } }] }),
    { status: 403, statusText: 'Forbidden', headers: { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': bearerChallenge(site.origin, 'insufficient_scope', description, { scope: missing.join(' ') }) } },
  ];
}

export function scopeGate(kind: VariantProfile['memberGraphql']['scopeGate'], schema: GraphQLSchema, scopeMap: ScopeMap): ScopeGate {
  if (kind === 'per-field') {
    return {
      admitToken: (site, verified) => requireAnyScope(site, verified, ACCOUNT_SCOPES),
      refusal: () => null,
    };
  }
  /** The scope sets each validated document needs, worked out once per document. */
  const scopesOf = new WeakMap<DocumentNode, Array<readonly string[]>>();
  function scopesNeeded(document: DocumentNode): Array<readonly string[]> {
    let needed = scopesOf.get(document);
    if (!needed) {
      needed = scopesNeededBy(schema, scopeMap, document);
      scopesOf.set(document, needed);
    }
    return needed;
  }
  return {
    admitToken: () => undefined,
    refusal(site, document, scopes) {
      const held = scopes as readonly string[];
      const missing = scopesNeeded(document).find((needed) => !needed.some((scope) => held.includes(scope)));
      return missing ? insufficientScope(site, missing) : null;
    },
  };
}
