import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import { routeByPrefix } from '../src/http/prefix-routing.js';

/**
 * Hot paths: the token-side endpoints are routed apart from the site's other routes. The split must answer
 * exactly as one router holding both sets would (200s, 404s, 405 with Allow, OPTIONS, upper case, trailing slash), and
 * start-up must refuse a route placed on the wrong side of the prefix.
 */

function routers(): { api: Router; rest: Router } {
  const api = new Router();
  api.post('/api/oauth/token', (ctx) => void (ctx.body = 'token'));
  api.get('/api/oauth/userinfo', (ctx) => void (ctx.body = 'userinfo'));
  api.post('/api/oauth/userinfo', (ctx) => void (ctx.body = 'userinfo'));
  const rest = new Router();
  rest.get('/', (ctx) => void (ctx.body = 'home'));
  rest.get('/api/admin/:rest', (ctx) => void (ctx.body = `admin ${ctx.params.rest}`));
  rest.post('/oauth/authorize', (ctx) => void (ctx.body = 'authorize'));
  return { api, rest };
}

async function serve(middleware: Koa.Middleware): Promise<{ server: Server; url: string }> {
  const app = new Koa();
  app.use(middleware);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('routing by prefix', () => {
  let split: { server: Server; url: string };
  let single: { server: Server; url: string };

  before(async () => {
    const a = routers();
    split = await serve(routeByPrefix('/api/oauth/', a.api, a.rest));
    // The reference: one router holding both sets of routes.
    const b = routers();
    const one = new Router();
    one.use(b.api.routes());
    one.use(b.rest.routes());
    const routes = one.routes() as unknown as Koa.Middleware;
    const allowedMethods = one.allowedMethods() as unknown as Koa.Middleware;
    single = await serve((ctx, next) => routes(ctx, () => allowedMethods(ctx, next)));
  });
  after(() => {
    split.server.close();
    single.server.close();
  });

  it('answers every request as one router holding both sets of routes would', async () => {
    const requests: Array<[string, string]> = [
      ['POST', '/api/oauth/token'],
      ['GET', '/api/oauth/token'],
      ['OPTIONS', '/api/oauth/token'],
      ['DELETE', '/api/oauth/userinfo'],
      ['GET', '/API/OAUTH/USERINFO'],
      ['GET', '/api/oauth/userinfo/'],
      ['GET', '/api/oauth/nothing'],
      ['GET', '/api/oauth'],
      ['GET', '/'],
      ['PUT', '/'],
      ['GET', '/api/admin/courses'],
      ['GET', '/oauth/authorize'],
      ['POST', '/oauth/authorize'],
      ['GET', '/missing'],
    ];
    for (const [method, path] of requests) {
      const [got, expected] = await Promise.all([split, single].map((target) => fetch(`${target.url}${path}`, { method })));
      const label = `${method} ${path}`;
      expect(got?.status, label).to.equal(expected?.status);
      expect(got?.headers.get('allow'), label).to.equal(expected?.headers.get('allow'));
      expect(await got?.text(), label).to.equal(await expected?.text());
    }
  });

  it('refuses at start-up a route under the prefix left in the other router, and one outside it in the prefixed router', () => {
    const misplacedUnderPrefix = routers();
    misplacedUnderPrefix.rest.get('/api/oauth/introspect', (ctx) => void (ctx.body = 'x'));
    expect(() => routeByPrefix('/api/oauth/', misplacedUnderPrefix.api, misplacedUnderPrefix.rest)).to.throw('/api/oauth/introspect could match a path under /api/oauth/');

    const parameterAbove = routers();
    parameterAbove.rest.get('/api/:anything/x', (ctx) => void (ctx.body = 'x'));
    expect(() => routeByPrefix('/api/oauth/', parameterAbove.api, parameterAbove.rest)).to.throw('could match a path under /api/oauth/');

    const outside = routers();
    outside.api.get('/oauth/token', (ctx) => void (ctx.body = 'x'));
    expect(() => routeByPrefix('/api/oauth/', outside.api, outside.rest)).to.throw('/oauth/token is not a route under /api/oauth/');

    const middleware = routers();
    middleware.rest.use((_ctx, next) => next());
    expect(() => routeByPrefix('/api/oauth/', middleware.api, middleware.rest)).to.throw('would run for paths under /api/oauth/ too');
  });
});
