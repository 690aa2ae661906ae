import Koa from 'koa';
import Router from '@koa/router';
import type { Config } from './config/config.js';
import type { Database } from './db/connection.js';
import { errorHandling } from './http/errors.js';
import { healthCheck } from './http/health.js';
import { requestLogging } from './http/request-id.js';
import { siteResolution } from './http/site-resolution.js';
import type { RequestState, SiteState } from './http/state.js';
import { homePage } from './pages/home.js';
import type { Logger } from './shared/logger.js';

export interface Services {
  config: Config;
  db: Database;
  logger: Logger;
}

/** The whole HTTP surface: process-wide routes first, then everything that belongs to the site of the request's origin. */
export function createApp(services: Services): Koa<RequestState> {
  const { config, db, logger } = services;
  const app = new Koa<RequestState>();
  app.proxy = config.trustProxy;
  app.silent = true;

  app.use(requestLogging(logger));
  app.use(errorHandling());

  const processRoutes = new Router<RequestState>();
  processRoutes.get('/healthz', healthCheck(db));
  app.use(processRoutes.routes());

  // Past this point every request belongs to the site of its origin, or gets a 404 naming the origin.
  const siteApp = app.use<SiteState>(siteResolution(db));
  const siteRoutes = new Router<SiteState>();
  siteRoutes.get('/', homePage(config.variant));
  siteApp.use(siteRoutes.routes());
  siteApp.use(siteRoutes.allowedMethods());

  return app;
}
