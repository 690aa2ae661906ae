import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { expect } from 'chai';
import { ConfigError } from '../src/config/config-error.js';
import { loadConfig } from '../src/config/config.js';
import { createSite } from '../src/sites/sites.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { freePort, startServerProcess, type ServerProcess } from './support/processes.js';

/**
 * SIGTERM under load: the process drains (docs/deployment.md, "Draining"). /readyz answers 503 at once, the listener
 * stays open SCHOOLGATE_DRAIN_SECONDS with every answer saying `Connection: close`, idle keep-alive connections are
 * closed, then the listener closes, in-flight requests finish and the process exits 0. Keep-alive clients see no reset
 * and no failed answer.
 */

const DISCOVERY_PATH = '/.well-known/openid-configuration';

interface LogLine {
  msg: string;
  /** ISO 8601 (src/shared/logger.ts). */
  time: string;
  [field: string]: unknown;
}

function logLines(server: ServerProcess): LogLine[] {
  return server
    .stdout()
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

function logTime(lines: LogLine[], prefix: string): number {
  const line = lines.find((candidate) => candidate.msg.startsWith(prefix));
  if (!line) throw new Error(`no log line "${prefix}…" in ${lines.map((candidate) => candidate.msg).join(' | ')}`);
  return Date.parse(line.time);
}

/** One GET on a keep-alive agent: the status and the Connection header of the answer. */
function keepAliveGet(agent: http.Agent, port: number, path: string, host: string): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent, headers: { host } }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
    });
    request.on('error', reject);
  });
}

/** A raw keep-alive connection that asked one thing and then sits idle: resolves with when the server closed it. */
async function idleKeepAliveConnection(port: number, host: string): Promise<{ closedAt: Promise<number> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const closedAt = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  socket.on('error', () => undefined);
  let received = '';
  await new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) resolve();
    });
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
  });
  return { closedAt };
}

/** Polls /readyz on fresh connections until the listener refuses one: the time of the first 503 and of the refusal. */
async function watchReadiness(port: number, until: Promise<unknown>): Promise<{ first503At: number | null; refusedAt: number | null; statuses: number[] }> {
  let first503At: number | null = null;
  let refusedAt: number | null = null;
  const statuses: number[] = [];
  let done = false;
  void until.then(() => (done = true));
  while (!done && refusedAt === null) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { connection: 'close' } });
      await response.arrayBuffer();
      statuses.push(response.status);
      if (response.status === 503 && first503At === null) first503At = Date.now();
    } catch {
      refusedAt = Date.now();
    }
    await sleep(25);
  }
  return { first503At, refusedAt, statuses };
}

describe('SCHOOLGATE_DRAIN_SECONDS', () => {
  it('is 5 seconds unless set; 0 is allowed; anything but a whole number stops start-up', () => {
    expect(loadConfig({}).drainSeconds).to.equal(5);
    expect(loadConfig({ SCHOOLGATE_DRAIN_SECONDS: '0' }).drainSeconds).to.equal(0);
    expect(loadConfig({ SCHOOLGATE_DRAIN_SECONDS: '30' }).drainSeconds).to.equal(30);
    for (const bad of ['-1', '2.5', 'soon']) expect(() => loadConfig({ SCHOOLGATE_DRAIN_SECONDS: bad }), bad).to.throw(ConfigError, 'SCHOOLGATE_DRAIN_SECONDS');
  });
});

for (const kind of TEST_DATABASE_KINDS) {
  describe(`draining on SIGTERM under keep-alive load [${kind}]`, function () {
    this.timeout(180_000);
    const DRAIN_SECONDS = 3;
    let scratch: ScratchDatabase;
    let server: ServerProcess;
    let signalledAt: number;
    let exitCode: number | null;
    let lines: LogLine[];
    let load: autocannon.Result;
    let loadClosing: number;
    const loadErrors: string[] = [];
    let probes: autocannon.Result;
    const probeStatuses: number[] = [];
    let readiness: Awaited<ReturnType<typeof watchReadiness>>;
    let duringDrain: { readyz: Awaited<ReturnType<typeof keepAliveGet>>; discovery: Awaited<ReturnType<typeof keepAliveGet>> };
    let beforeDrain: Awaited<ReturnType<typeof keepAliveGet>>;
    let idleClosedAt: number;

    before(async () => {
      scratch = await createScratchDatabase(kind);
      const port = await freePort();
      const host = `localhost:${port}`;
      await createSite(scratch.db, { origin: `http://${host}`, name: 'Drain School' });
      server = await startServerProcess({ DATABASE_URL: scratch.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', SCHOOLGATE_DEMO: 'false', SCHOOLGATE_DRAIN_SECONDS: String(DRAIN_SECONDS) });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      beforeDrain = await keepAliveGet(agent, port, DISCOVERY_PATH, host);
      const idle = await idleKeepAliveConnection(port, host);

      // Keep-alive load on a cheap route (discovery) and on /readyz, as a load balancer's traffic and probes.
      loadClosing = 0;
      let loadDone!: (result: autocannon.Result) => void;
      const loadFinished = new Promise<autocannon.Result>((resolve) => (loadDone = resolve));
      const loadRun = autocannon(
        {
          url: `http://127.0.0.1:${port}`,
          connections: 8,
          duration: 60,
          // Checked every 100 ms rather than every second, so that stop() ends the load when the test says.
          sampleInt: 100,
          headers: { host },
          requests: [
            {
              method: 'GET',
              path: DISCOVERY_PATH,
              onResponse: (_status, _body, _context, headers) => {
                if (String(headers?.connection ?? headers?.Connection ?? '').toLowerCase() === 'close') loadClosing += 1;
              },
            },
          ],
        },
        (error, result) => (error ? loadDone({ errors: 1 } as autocannon.Result) : loadDone(result)),
      );
      let probesDone!: (result: autocannon.Result) => void;
      const probesFinished = new Promise<autocannon.Result>((resolve) => (probesDone = resolve));
      const probeRun = autocannon(
        { url: `http://127.0.0.1:${port}`, connections: 2, duration: 60, sampleInt: 100, requests: [{ method: 'GET', path: '/readyz', onResponse: (status) => void probeStatuses.push(status) }] },
        (error, result) => (error ? probesDone({ errors: 1 } as autocannon.Result) : probesDone(result)),
      );
      loadRun.on('reqError', (error: NodeJS.ErrnoException) => loadErrors.push(error.code ?? error.message));
      probeRun.on('reqError', (error: NodeJS.ErrnoException) => loadErrors.push(`readyz ${error.code ?? error.message}`));
      await sleep(2000);

      signalledAt = Date.now();
      server.child.kill('SIGTERM');
      const watching = watchReadiness(port, server.exited);
      // A load balancer stops sending once it has seen /readyz 503; until then the load goes on (and keeps going a
      // little longer, well inside the drain, so that answers during the drain are measured).
      while (!probeStatuses.includes(503)) await sleep(20);
      duringDrain = { readyz: await keepAliveGet(agent, port, '/readyz', host), discovery: await keepAliveGet(agent, port, DISCOVERY_PATH, host) };
      await sleep(500);
      loadRun.stop();
      probeRun.stop();
      [load, probes] = await Promise.all([loadFinished, probesFinished]);
      agent.destroy();
      exitCode = await server.exited;
      readiness = await watching;
      idleClosedAt = await idle.closedAt;
      lines = logLines(server);
    });
    after(async () => {
      if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
      await scratch?.drop();
    });

    it('answers every request of the keep-alive load: no connection error or reset, no timeout, no non-2xx', () => {
      expect(load.requests.total, 'requests answered').to.be.greaterThan(20);
      expect(loadErrors, 'connection errors').to.deep.equal([]);
      expect({ errors: load.errors, timeouts: load.timeouts, non2xx: load.non2xx, mismatches: load.mismatches }).to.deep.equal({ errors: 0, timeouts: 0, non2xx: 0, mismatches: 0 });
      expect({ errors: probes.errors, timeouts: probes.timeouts }).to.deep.equal({ errors: 0, timeouts: 0 });
      expect(probeStatuses.every((status) => status === 200 || status === 503), `readyz answers: ${[...new Set(probeStatuses)].join(', ')}`).to.equal(true);
    });

    it('says Connection: close on the answers during the drain, not before', () => {
      expect(beforeDrain).to.deep.equal({ status: 200, connection: 'keep-alive' });
      expect(duringDrain.readyz).to.deep.equal({ status: 503, connection: 'close' });
      expect(duringDrain.discovery).to.deep.equal({ status: 200, connection: 'close' });
      expect(loadClosing, 'load answers saying Connection: close').to.be.greaterThan(0);
    });

    it('answers /readyz 503 at once and keeps listening SCHOOLGATE_DRAIN_SECONDS before the listener closes', () => {
      const drainStarted = logTime(lines, 'draining');
      const listenerClosed = logTime(lines, 'listener closed');
      expect(readiness.first503At, 'a 503 from /readyz').to.not.equal(null);
      expect(readiness.first503At as number).to.be.lessThan(listenerClosed);
      expect(drainStarted - signalledAt, 'drain begins on the signal').to.be.lessThan(1000);
      expect(listenerClosed - drainStarted).to.be.within(DRAIN_SECONDS * 1000 - 50, DRAIN_SECONDS * 1000 + 1000);
      if (readiness.refusedAt !== null) expect(readiness.refusedAt).to.be.at.least(listenerClosed - 50);
      expect(lines.find((line) => line.msg.startsWith('draining'))?.drainSeconds).to.equal(DRAIN_SECONDS);
    });

    it('closes idle keep-alive connections during the drain', () => {
      expect(idleClosedAt).to.be.at.least(signalledAt);
      expect(idleClosedAt).to.be.lessThan(logTime(lines, 'listener closed'));
    });

    it('exits 0 after the listener closed, with one line at each step', () => {
      expect(exitCode).to.equal(0);
      const messages = lines.map((line) => line.msg);
      const steps = ['shutting down', 'draining', 'listener closed', 'stopped'].map((prefix) => messages.findIndex((message) => message.startsWith(prefix)));
      expect(steps.every((index) => index >= 0), messages.join(' | ')).to.equal(true);
      expect([...steps].sort((a, b) => a - b)).to.deep.equal(steps);
    });
  });
}

// Signal handling does not depend on the store: on the first one tested.
const signalsKind = TEST_DATABASE_KINDS[0] ?? 'sqlite';
describe(`draining: no delay, a request across the close, a second signal [${signalsKind}]`, function () {
  this.timeout(180_000);
  let scratch: ScratchDatabase;
  before(async () => {
    scratch = await createScratchDatabase(signalsKind);
  });
  after(async () => scratch.drop());

  it('SCHOOLGATE_DRAIN_SECONDS=0 closes the listener at once and exits 0', async () => {
    const port = await freePort();
    const server = await startServerProcess({ DATABASE_URL: scratch.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', SCHOOLGATE_DEMO: 'false', SCHOOLGATE_DRAIN_SECONDS: '0' });
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).to.equal(200);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).to.equal(0);
    const lines = logLines(server);
    expect(lines.find((line) => line.msg.startsWith('draining'))?.drainSeconds).to.equal(0);
    // No delay: well under the default 5 s (the margin is for a loaded machine's signal handling).
    expect(logTime(lines, 'listener closed') - signalledAt).to.be.lessThan(3000);
  });

  it('a request still arriving when the listener closes is answered (Connection: close) before the process exits', async () => {
    const port = await freePort();
    const server = await startServerProcess({ DATABASE_URL: scratch.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', SCHOOLGATE_DEMO: 'false', SCHOOLGATE_DRAIN_SECONDS: '1' });
    try {
      // A slow client: half its request's headers before the signal, the rest once the listener has closed.
      const socket = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      server.child.kill('SIGTERM');
      const readiness = await watchReadiness(port, server.exited);
      expect(readiness.refusedAt, 'the listener closed').to.not.equal(null);
      socket.write('Accept: application/json\r\n\r\n');
      await closed;
      expect(answer).to.match(/^HTTP\/1\.1 503 /);
      expect(answer.toLowerCase()).to.contain('connection: close');
      expect(await server.exited).to.equal(0);
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    }
  });

  it('a second signal during the drain closes the listener without waiting out the delay', async () => {
    const port = await freePort();
    const server = await startServerProcess({ DATABASE_URL: scratch.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', SCHOOLGATE_DEMO: 'false', SCHOOLGATE_DRAIN_SECONDS: '60' });
    let secondAt: number;
    try {
      server.child.kill('SIGTERM');
      let status = 0;
      while (status !== 503) {
        status = (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
        await sleep(25);
      }
      secondAt = Date.now();
      server.child.kill('SIGINT');
      expect(await server.exited).to.equal(0);
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    }
    const lines = logLines(server);
    expect(lines.map((line) => line.msg)).to.include('second signal: closing the listener now');
    expect(logTime(lines, 'listener closed') - secondAt).to.be.lessThan(5000);
  });
});
