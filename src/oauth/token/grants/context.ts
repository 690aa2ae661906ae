import type { ResolvedClient } from '../../client-resolution.js';
import type { Services } from '../../../services.js';
import type { Site } from '../../../sites/sites.js';
import type { TokenResponse } from '../token-response.js';

/** What a grant handler works from: the authenticated client and the request's form. */
export interface GrantContext {
  services: Services;
  site: Site;
  client: ResolvedClient['client'];
  form: Map<string, string>;
}

export type GrantHandler = (context: GrantContext) => Promise<TokenResponse>;
