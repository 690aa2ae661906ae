import http from 'node:http';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { OAUTH_PATHS } from '../src/oauth/endpoints.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { rawGet, type RawResponse } from './support/raw-http.js';
import { testConfig } from './support/server.js';

/** A token request whose body has not all arrived: its handler holds its place among the requests in flight until `finish`. */
function heldTokenRequest(port: number, host: string): { finish(): Promise<RawResponse> } {
  const body = 'grant_type=refresh_token&refresh_token=unknown&client_id=nobody';
  let answered: (response: RawResponse) => void = () => undefined;
  const response = new Promise<RawResponse>((resolve) => {
    answered = resolve;
  });
  const req = http.request({ host: '127.0.0.1', port, path: OAUTH_PATHS.token, method: 'POST', headers: { Host: host, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) } }, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => answered({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
  });
  req.flushHeaders();
  req.write(body.slice(0, 10));
  return {
    finish() {
      req.end(body.slice(10));
      return response;
    },
  };
}

/**
 * SCHOOLGATE_REQUESTS_IN_FLIGHT: at most that many requests are handled at once, the others wait their turn in arrival
 * order and are answered 503 with Retry-After past SCHOOLGATE_REQUEST_QUEUE_TIMEOUT_MS; the probes never wait.
 */
describeEachDatabase('requests in flight', (scratch) => {
  async function start(queueTimeoutMs: number): Promise<{ running: RunningServer; port: number; host: string; site: Site; lines: string[] }> {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        callback();
      },
    });
    const config = testConfig({ database: scratch().config, variant: 'A', requestsInFlight: { requests: 1, queueTimeoutMs } });
    const running = await startServer(config, { db: scratch().db, logger: createLogger('info', destination) });
    const port = Number(new URL(running.listeningOn).port);
    const host = `localhost:${port}`;
    const site = await createSite(scratch().db, { origin: `http://${host}`, name: `Queue School ${port}`, subdomain: `queue-${port}` });
    return { running, port, host, site, lines };
  }

  const userinfoPaths = (lines: string[]) =>
    lines
      .map((line) => JSON.parse(line) as { msg?: string; path?: string; status?: number; requestId?: string })
      .filter((entry) => entry.msg === 'request' && entry.path === OAUTH_PATHS.userinfo)
      .map((entry) => entry.requestId);

  it('queues requests past the limit and serves them in arrival order once a place is free; the probes do not wait', async () => {
    const { running, port, host, lines } = await start(60_000);
    try {
      const held = heldTokenRequest(port, host);
      // The held request takes the one place before the others arrive.
      await new Promise((resolve) => setTimeout(resolve, 200));
      // One after another, so that their arrival order is theirs even on a busy machine.
      const queued: Array<ReturnType<typeof rawGet>> = [];
      for (const id of ['first', 'second', 'third']) {
        queued.push(rawGet(port, host, OAUTH_PATHS.userinfo, { 'x-request-id': id }));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const health = await rawGet(port, host, '/healthz');
      expect(health.status).to.equal(200);
      expect(userinfoPaths(lines)).to.deep.equal([]);
      const token = await held.finish();
      expect(token.status).to.equal(401);
      const answers = await Promise.all(queued);
      // No token: each is refused by userinfo itself, none by the queue.
      expect(answers.map((answer) => answer.status)).to.deep.equal([401, 401, 401]);
      expect(userinfoPaths(lines)).to.deep.equal(['first', 'second', 'third']);
    } finally {
      await running.stop(1000);
    }
  });

  it('does not serve a queued request whose client closed its connection while it waited', async () => {
    const { running, port, host, lines } = await start(60_000);
    try {
      const held = heldTokenRequest(port, host);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const gone = http.get({ host: '127.0.0.1', port, path: OAUTH_PATHS.userinfo, headers: { Host: host, 'x-request-id': 'gone' } });
      gone.on('error', () => undefined);
      const waiting = rawGet(port, host, OAUTH_PATHS.userinfo, { 'x-request-id': 'waiting' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      gone.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await held.finish()).status).to.equal(401);
      expect((await waiting).status).to.equal(401);
      const statusOf = (id: string) => lines.map((line) => JSON.parse(line) as { msg?: string; requestId?: string; status?: number }).find((entry) => entry.msg === 'request' && entry.requestId === id)?.status;
      expect(statusOf('gone')).to.equal(503);
      expect(statusOf('waiting')).to.equal(401);
    } finally {
      await running.stop(1000);
    }
  });

  it('answers 503 temporarily_unavailable with Retry-After to a request that waited past the queue timeout, then serves again', async () => {
    const { running, port, host } = await start(100);
    try {
      const held = heldTokenRequest(port, host);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const refused = await rawGet(port, host, OAUTH_PATHS.userinfo);
      expect(refused.status).to.equal(503);
      expect(refused.headers['retry-after']).to.equal('1');
      expect(JSON.parse(refused.body.toString()) as unknown).to.include({ error: 'temporarily_unavailable' });
      expect((await held.finish()).status).to.equal(401);
      expect((await rawGet(port, host, OAUTH_PATHS.userinfo)).status).to.equal(401);
    } finally {
      await running.stop(1000);
    }
  });
});
