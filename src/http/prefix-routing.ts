import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { nameRouteOfRefusedMethod } from './metrics.js';

/** A router's routes and its 405/501/OPTIONS answers, as one middleware; a 405 or 501 is counted under the path's route. */
function routesOf<State>(router: Router<State>): Middleware<State> {
  const routes = router.routes() as unknown as Middleware<State>;
  const allowedMethods = router.allowedMethods() as unknown as Middleware<State>;
  return (ctx, next) => routes(ctx, () => allowedMethods(ctx, next)).then(() => nameRouteOfRefusedMethod(ctx, router));
}

/** The literal start of a route's path, up to its first parameter, wildcard or group. */
function literalHead(path: string): string {
  const end = path.search(/[:*({]/);
  return end < 0 ? path : path.slice(0, end);
}

/**
 * Routers chosen by path prefix: a request whose path starts with `prefix` (case-insensitively, as routes match) is
 * routed by `prefixed` alone, every other request by `rest`, each followed by its own allowedMethods(). Each route is
 * thus tested against the request only where it could match, and a hot endpoint no longer pays for testing every
 * route of the site and building the chain of each match. The answers are those of one router holding both sets of
 * routes, which holds only while every route of `prefixed` lies under the prefix and no route or middleware of `rest`
 * can match a path under it: checked here, so a route added on the wrong side stops start-up.
 */
export function routeByPrefix<State>(prefix: string, prefixed: Router<State>, rest: Router<State>): Middleware<State> {
  const lowerPrefix = prefix.toLowerCase();
  if (!lowerPrefix.startsWith('/') || !lowerPrefix.endsWith('/')) throw new Error(`routeByPrefix: the prefix must start and end with "/", not ${prefix}`);
  for (const layer of prefixed.stack) {
    if (typeof layer.path !== 'string' || layer.methods.length === 0 || layer.path.length <= prefix.length || !layer.path.toLowerCase().startsWith(lowerPrefix)) {
      throw new Error(`routeByPrefix: ${String(layer.path)} is not a route under ${prefix}`);
    }
  }
  for (const layer of rest.stack) {
    if (typeof layer.path !== 'string' || layer.methods.length === 0) throw new Error(`routeByPrefix: ${String(layer.path)} would run for paths under ${prefix} too`);
    const head = literalHead(layer.path).toLowerCase();
    // A literal route also matches its path with a trailing slash; one with parameters, anything its head starts.
    const fullyLiteral = head === layer.path.toLowerCase();
    if (fullyLiteral ? `${head}/`.startsWith(lowerPrefix) : head.startsWith(lowerPrefix) || lowerPrefix.startsWith(head)) {
      throw new Error(`routeByPrefix: ${layer.path} could match a path under ${prefix}`);
    }
  }
  const routePrefixed = routesOf(prefixed);
  const routeRest = routesOf(rest);
  // Case-insensitive as a regular expression, like the routes' own patterns.
  const underPrefix = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i');
  return (ctx, next) => (underPrefix.test(ctx.path) ? routePrefixed(ctx, next) : routeRest(ctx, next));
}
