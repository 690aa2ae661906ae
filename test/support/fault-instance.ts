import { Writable } from 'node:stream';
import type { Config } from '../../src/config/config.js';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { insertPair, newGrantId } from '../../src/oauth/tokens/store.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createLogger } from '../../src/shared/logger.js';
import { createSite, type Site } from '../../src/sites/sites.js';
import { issueToken } from './admin.js';
import type { ScratchDatabase } from './databases.js';
import { makeClient, makeUser } from './oauth-fixtures.js';
import { testConfig } from './server.js';
import { graphqlPath, memberToken } from './member-api.js';
import { variantProfile } from '../../src/variant.js';
import { TcpProxy } from './tcp-proxy.js';

/** One log line as pino wrote it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A server instance that reaches MySQL through a TCP proxy the test controls, with the credentials of each interface. */
export interface FaultInstance {
  origin: string;
  proxy: TcpProxy;
  running: RunningServer;
  db: Database;
  site: Site;
  memberToken: string;
  operatorToken: string;
  /** A public member client's id and a refresh token of it (the refresh fails while the store is down, so it stays valid). */
  refresh: { clientId: string; token: string };
  /** Every line the instance logged (debug and above). */
  logs: LogLine[];
  stop(): Promise<void>;
}

/** Knex's own warnings are the expected symptom of the faults here. */
const quiet = (): void => undefined;

export async function startFaultInstance(scratch: ScratchDatabase, overrides: Partial<Config> = {}): Promise<FaultInstance> {
  const config = scratch.config;
  if (config.client !== 'mysql') throw new Error('expected a MySQL scratch database');
  const proxy = new TcpProxy({ host: config.host, port: config.port });
  await proxy.listen();
  const proxied = { ...config, host: '127.0.0.1', port: proxy.port };
  const db = openDatabase(proxied, quiet);
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const running = await startServer(testConfig({ variant: 'A', database: proxied, ...overrides }), { db, logger: createLogger('debug', sink) });
  const port = new URL(running.listeningOn).port;
  const origin = `http://localhost:${port}`;
  const site = await createSite(scratch.db, { origin, name: `Fault School ${port}`, subdomain: `fault-${port}` });
  const member = await makeUser(scratch.db, site, ['student'], 'Mia Member');
  const access = await memberToken(scratch.db, site, member, 'openid profile email account:read');
  const operator = await issueToken(scratch.db, site, { scopes: ['courses:read'] });
  const app = await makeClient(scratch.db, site, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'] });
  const pair = await insertPair(scratch.db, { grantId: newGrantId(), siteId: site.id, clientRef: app.client.ref, userId: member.id, scopes: ['openid', 'account:read'], resource: origin, schoolId: variantProfile('A').schoolBoundMemberTokens ? site.id : null, authTime: new Date() });
  if (pair.refreshToken === null) throw new Error('expected a refresh token');
  return {
    origin,
    proxy,
    running,
    db,
    site,
    memberToken: access,
    operatorToken: operator.token,
    refresh: { clientId: app.client.clientId, token: pair.refreshToken },
    logs,
    async stop() {
      await running.stop(1000);
      await db.destroy();
      await proxy.close();
    },
  };
}

/** One request of an interface, and how long its answer took. */
export interface Timed {
  kind: string;
  status: number;
  retryAfter: string | null;
  ms: number;
}

/** The requests of each interface that need the database: userinfo, a refresh, member GraphQL, /mcp, the admin API. */
export function interfaceRequests(instance: FaultInstance): Record<string, () => Promise<Response>> {
  const { origin } = instance;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  return {
    userinfo: () => fetch(`${origin}/api/oauth/userinfo`, { headers: bearer(instance.memberToken) }),
    refresh: () =>
      fetch(`${origin}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: instance.refresh.token, client_id: instance.refresh.clientId }),
      }),
    graphql: () =>
      fetch(`${origin}${graphqlPath('A')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...bearer(instance.memberToken) },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      }),
    mcp: () =>
      fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...bearer(instance.memberToken) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fault-test', version: '1' } } }),
      }),
    admin: () => fetch(`${origin}/api/admin/v1/courses`, { headers: bearer(instance.operatorToken) }),
  };
}

/** `total` requests at once, spread over the interfaces in turn; each answer's status, Retry-After and time. */
export async function burst(instance: FaultInstance, total: number): Promise<Timed[]> {
  const requests = Object.entries(interfaceRequests(instance));
  return Promise.all(
    Array.from({ length: total }, async (_, index) => {
      const [kind, send] = requests[index % requests.length] as [string, () => Promise<Response>];
      const started = performance.now();
      const response = await send();
      await response.arrayBuffer();
      return { kind, status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - started };
    }),
  );
}

/** The 99th percentile of the answers' times (of 30 answers: the slowest). */
export function p99(answers: readonly Timed[]): number {
  const sorted = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}

/** Milliseconds until userinfo answers 200 again, polling every 50 ms; throws after `withinMs`. */
export async function timeToRecover(instance: FaultInstance, withinMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const response = await fetch(`${instance.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${instance.memberToken}` } });
    await response.arrayBuffer();
    if (response.status === 200) return performance.now() - started;
    if (performance.now() - started > withinMs) throw new Error(`still ${response.status} after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
