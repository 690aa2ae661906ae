import type { ParameterizedContext } from 'koa';
import type { Logger } from '../shared/logger.js';
import type { Site } from '../sites/sites.js';

/** What middleware puts on ctx.state before a route runs. */
export interface RequestState {
  requestId: string;
  log: Logger;
  /** The route's template for metrics, where no @koa/router route matched (the admin API's OpenAPI paths). */
  routeTemplate?: string;
  /** The client the request identified (an authenticated client, or the client of a verified token), for the access line. */
  clientId?: string;
  /** The error code of an error answer (the OAuth `error`, the problem's `code`), for the access line. */
  errorCode?: string;
}

/** Routes mounted behind site resolution also know the site of the request's origin. */
export interface SiteState extends RequestState {
  site: Site;
}

export type RequestContext = ParameterizedContext<RequestState>;
export type SiteContext = ParameterizedContext<SiteState>;
