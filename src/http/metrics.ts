import type { Middleware } from 'koa';
import type { RequestState } from './state.js';
import type { Metrics } from '../metrics/metrics.js';

/**
 * Counts and times every request by its route template (the router's pattern, e.g. `/api/oauth/token`, or the admin
 * API's OpenAPI path, e.g. `/api/admin/v1/courses/{courseId}`; never the raw path, so the label set stays bounded),
 * method and status; 429s are also counted as rate-limit refusals. Unrouted requests share one label.
 */
export function httpMetrics(metrics: Metrics): Middleware<RequestState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const labels = { route: routeTemplate(ctx), method: ctx.method, status: String(ctx.status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      if (ctx.status === 429) metrics.rateLimited.inc({ route: labels.route });
    }
  };
}

/** What nameRouteOfRefusedMethod reads of a router: the routes whose pattern matches a path (@koa/router's match). */
interface PathMatcher {
  match(path: string, method: string): { path: ReadonlyArray<{ path: string | RegExp; methods: readonly string[] }> };
}

/**
 * A router's 405 (or 501) has no matched route, yet the path is one of its routes with other methods: names that
 * route's template for the metrics (RFC 9110 15.5.6: the resource exists). Free for every other answer.
 */
export function nameRouteOfRefusedMethod(ctx: { status: number; path: string; method: string; state: unknown }, router: PathMatcher): void {
  if (ctx.status !== 405 && ctx.status !== 501) return;
  const state = ctx.state as Partial<RequestState>;
  if (state.routeTemplate !== undefined) return;
  const route = router.match(ctx.path, ctx.method).path.findLast((layer) => layer.methods.length > 0 && typeof layer.path === 'string');
  if (route) state.routeTemplate = route.path as string;
}

function routeTemplate(ctx: { _matchedRoute?: string | RegExp; state: RequestState; path: string }): string {
  if (typeof ctx._matchedRoute === 'string') return ctx._matchedRoute;
  if (ctx.state.routeTemplate) return ctx.state.routeTemplate;
  return ctx.path === '/healthz' || ctx.path === '/readyz' ? ctx.path : '(unrouted)';
}
