import type { SignedInSession } from '../../accounts/sessions.js';
import type { OAuthClient } from '../../clients/clients.js';
import type { Database } from '../../db/connection.js';
import type { SiteContext } from '../../http/state.js';
import type { Site } from '../../sites/sites.js';
import type { RunnableFlow } from '../authorize/pipeline.js';
import type { IdTokenHint } from './id-token-hint.js';

/** What the steps of one logout request learn, in the order they learn it. */
export interface LogoutFlow extends RunnableFlow {
  readonly ctx: SiteContext;
  readonly db: Database;
  readonly site: Site;
  /** The request's parameters (query or form), each given once. */
  params: Map<string, string>;
  hint: IdTokenHint | null;
  /** The client named by client_id or the hint, once found at this site. */
  client: OAuthClient | null;
  /** Set only once post_logout_redirect_uri matched one the client registered: the only redirect this endpoint makes. */
  redirect: { uri: string; state: string | null } | null;
  /** The browser's signed-in session, when there is one. */
  session: SignedInSession | null;
}

export function newLogoutFlow(ctx: SiteContext, db: Database): LogoutFlow {
  return {
    ctx,
    db,
    site: ctx.state.site,
    finished: false,
    params: new Map(),
    hint: null,
    client: null,
    redirect: null,
    session: null,
    trace: (stepName) => ctx.state.log.debug({ step: stepName }, 'logout step'),
  };
}
