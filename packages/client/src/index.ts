import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './generated/admin-api.js';

export type { components, operations, paths } from './generated/admin-api.js';

/** The typed admin API client: openapi-fetch over the admin contract's `paths`. */
export type AdminClient = Client<paths>;

export interface AdminClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** An operator access token (`Authorization: Bearer …`), or a function that returns the current one. */
  token: string | (() => string | Promise<string>);
}

/** The admin API's base path on every site (`{origin}/api/admin/v1`). */
export const ADMIN_API_BASE_PATH = '/api/admin/v1';

/**
 * A typed client for the admin API of the site at `origin` (e.g. `https://school.example`), sending the operator token
 * on every request: `const { data, error } = await client.GET('/school')`.
 */
export function createAdminClient(origin: string, options: AdminClientOptions): AdminClient {
  const { token, ...rest } = options;
  const client = createClient<paths>({ ...rest, baseUrl: `${origin.replace(/\/+$/, '')}${ADMIN_API_BASE_PATH}` });
  client.use({
    async onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${typeof token === 'function' ? await token() : token}`);
      return request;
    },
  });
  return client;
}
