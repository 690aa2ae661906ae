import type { User } from '../../accounts/users.js';
import type { SignInSession } from '../../accounts/sessions.js';
import type { OAuthClient } from '../../clients/clients.js';
import type { Database } from '../../db/connection.js';
import type { SiteContext } from '../../http/state.js';
import type { Site } from '../../sites/sites.js';
import { ServerError } from '../errors.js';
import type { AuthorizationParameters, PendingAuthorization } from './authorization-requests.js';
import type { RunnableFlow } from './pipeline.js';

/** Where the answer goes once the client and its redirect_uri are verified (RFC 6749 4.1.2, RFC 9207 `iss`). */
export interface RedirectTarget {
  redirectUri: string;
  state: string | null;
  iss: string;
}

/** What the steps of one authorize-page request learn, in the order they learn it. */
export interface AuthorizeFlow extends RunnableFlow {
  readonly ctx: SiteContext;
  readonly db: Database;
  readonly site: Site;
  /** CSP form-action sources of this response besides 'self': the verified redirect origin. */
  formActionSources: string[];
  /** Null until client and redirect_uri are verified; errors are pages until then, redirects after. */
  redirect: RedirectTarget | null;
  /** GET /oauth/authorize: the parameters, each given once. */
  query?: Map<string, string>;
  /** A duplicated parameter, reported once the redirect is verified. */
  duplicatedParameters?: string[];
  /** The request being validated (GET), complete once saved. */
  draft: Partial<AuthorizationParameters>;
  /** Ask for the password even with a live session (OpenID Connect prompt=login). */
  forceSignIn?: boolean;
  /** Page forms: the posted fields, each given once. */
  form?: Map<string, string>;
  client?: OAuthClient;
  /** The saved authorization request and the handle its pages carry. */
  request?: PendingAuthorization;
  handle?: string;
  /** The browser's sign-in session at this site and the cookie token that named it. */
  session?: SignInSession;
  sessionToken?: string;
  user?: User;
}

export function newFlow(ctx: SiteContext, db: Database): AuthorizeFlow {
  return {
    ctx,
    db,
    site: ctx.state.site,
    finished: false,
    formActionSources: [],
    redirect: null,
    draft: {},
    trace: (stepName) => ctx.state.log.debug({ step: stepName }, 'authorize step'),
  };
}

/** A value an earlier step must have set; a missing one is a wrongly ordered step list. */
export function need<K extends keyof AuthorizeFlow>(flow: AuthorizeFlow, key: K): NonNullable<AuthorizeFlow[K]> {
  const value = flow[key];
  if (value === undefined || value === null) throw new ServerError(`authorize step order: ${String(key)} is not known yet`);
  return value as NonNullable<AuthorizeFlow[K]>;
}
