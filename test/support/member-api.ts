import type { User } from '../../src/accounts/users.js';
import type { Variant } from '../../src/config/config.js';
import type { Database } from '../../src/db/connection.js';
import type { Site } from '../../src/sites/sites.js';
import { variantProfile } from '../../src/variant.js';
import { discover, exchangeCode, issueCode, makeClient } from './oauth-fixtures.js';

export function graphqlPath(variant: Variant): string {
  return variantProfile(variant).memberGraphql.path;
}

/** A member access token for `user` at `site` with `scope`, issued through the real token endpoint. */
export async function memberToken(db: Database, site: Site, user: User, scope = 'openid profile email account:read account:write'): Promise<string> {
  const app = await makeClient(db, site, { audience: 'member', confidential: false, scopes: scope.split(' ') });
  const as = await discover(site.origin);
  const grant = await issueCode(db, site, app, user, scope);
  const body = (await (await exchangeCode(as, app, grant)).json()) as { access_token?: string; error_description?: string };
  if (!body.access_token) throw new Error(`no token: ${body.error_description ?? 'unknown error'}`);
  return body.access_token;
}

export interface GraphQLResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  data?: T | null;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
}

/** POST a GraphQL request (application/json) to the site's member API path for the variant. */
export async function gql<T = Record<string, unknown>>(origin: string, variant: Variant, token: string | null, query: string, variables?: Record<string, unknown>): Promise<GraphQLResult<T>> {
  const response = await fetch(`${origin}${graphqlPath(variant)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  const body = (text === '' ? {} : JSON.parse(text)) as Omit<GraphQLResult<T>, 'status' | 'headers'>;
  return { status: response.status, headers: response.headers, ...body };
}
