/**
 * The floors' server (npm run bench): plain Koa + @koa/router + knex routes doing by hand what the product does, in a
 * process of their own over the product's database (DATABASE_URL). Prints one JSON line with `listeningOn`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { parseDatabaseUrl } from '../../../src/config/database-url.js';
import { openDatabase } from '../../../src/db/connection.js';
import { FLOORS } from './index.js';

const db = openDatabase(parseDatabaseUrl(process.env.DATABASE_URL));
const router = new Router();
for (const mount of FLOORS) mount(router, db);
const app = new Koa();
app.use(router.routes());
const server = http.createServer(app.callback()).listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ listeningOn: `http://127.0.0.1:${port}` })}\n`);
});
process.once('SIGTERM', () => server.close(() => void db.destroy()));
