import type { ResolvedClient } from '../../client-resolution.js';
import type { Services } from '../../../services.js';
import type { Site } from '../../../sites/sites.js';
import type { TokenResponse } from '../token-response.js';
import type { PresentedRefreshToken } from '../../tokens/verification.js';

/** What a grant handler works from: the authenticated client and the request's form. */
export interface GrantContext {
  services: Services;
  site: Site;
  client: ResolvedClient['client'];
  form: Map<string, string>;
  /** The refresh grant's token, read before client authentication together with its client (one statement). */
  presented?: PresentedRefreshToken | null;
  /** The thumbprint of the request's accepted DPoP proof key (RFC 9449 5): what issued tokens are bound to; null: bearer. */
  dpopJkt: string | null;
}

export type GrantHandler = (context: GrantContext) => Promise<TokenResponse>;
