import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import mysql from 'mysql2';
import { classifyFailure, isDatabaseUnavailable } from '../src/shared/failure.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { burst, startFaultInstance, timeToRecover, type FaultInstance } from './support/fault-instance.js';

function driverError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

const NOT_READY = 'WSREP has not yet prepared node for application use';

describe('database unavailability: node-not-ready and broken-connection errors', () => {
  it('classifies them as database_unavailable (503 temporarily_unavailable with Retry-After), not as a fault of ours', () => {
    const errors = [
      driverError(NOT_READY, { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047, sqlState: '08S01' }),
      driverError('Too many connections', { code: 'ER_CON_COUNT_ERROR', errno: 1040 }),
      driverError('Server shutdown in progress', { code: 'ER_SERVER_SHUTDOWN', errno: 1053 }),
      driverError('Connection was killed', { code: 'ER_CONNECTION_KILLED', errno: 1927 }),
      driverError('Connection lost: The server closed the connection.', { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }),
      driverError("Can't add new command when connection is in closed state", { fatal: true }),
      driverError('connect ETIMEDOUT', { code: 'ETIMEDOUT', errorno: 'ETIMEDOUT', fatal: true }),
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?'), { name: 'KnexTimeoutError' }),
    ];
    for (const raw of errors) {
      expect(isDatabaseUnavailable(raw), raw.message).to.equal(true);
      const failure = classifyFailure(raw);
      expect(failure.kind, raw.message).to.equal('database_unavailable');
      expect([failure.error.status, failure.error.code, failure.error.headers]).to.deep.equal([503, 'temporarily_unavailable', { 'Retry-After': '1' }]);
      expect(failure.error.message, 'never the driver text').not.to.contain(raw.message);
    }
  });

  it('keeps a wrong statement a fault of ours', () => {
    const raw = driverError("Table 'x.y' doesn't exist", { code: 'ER_NO_SUCH_TABLE', errno: 1146 });
    expect(isDatabaseUnavailable(raw)).to.equal(false);
    expect(classifyFailure(raw).kind).to.equal('internal');
  });
});

/**
 * A server speaking the MySQL protocol as a Galera node that is not yet part of the primary component does: it
 * accepts the connection and session settings, and answers every other statement with errno 1047.
 */
async function notReadyNode(): Promise<{ port: number; close(): Promise<void> }> {
  const server = mysql.createServer((connection) => {
    connection.serverHandshake({
      protocolVersion: 10,
      serverVersion: '10.11.0-MariaDB-galera',
      connectionId: 1,
      statusFlags: 2,
      characterSet: 8,
      // Everything but SSL and compression.
      capabilityFlags: 0xffffff & ~(0x800 | 0x20),
      authCallback: (_params: unknown, done: (error: null, mysqlError?: null) => void) => done(null, null),
    });
    connection.on('query', (sql: string) => {
      if (/^\s*SET\b/i.test(sql)) connection.writeOk();
      else connection.writeError({ code: 1047, message: NOT_READY });
    });
    connection.on('error', () => undefined);
  });
  // mysql2's server listens through the net.Server it wraps (its typings only take a port).
  const listener = (server as unknown as { _server: net.Server })._server;
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  const { port } = listener.address() as AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const describeMysql = TEST_DATABASE_KINDS.includes('mysql') ? describe : describe.skip;

describeMysql('a Galera node that is not ready (errno 1047) [mysql]', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase;
  let instance: FaultInstance;
  let node: Awaited<ReturnType<typeof notReadyNode>>;

  before(async () => {
    scratch = await createScratchDatabase('mysql');
    instance = await startFaultInstance(scratch);
    node = await notReadyNode();
  });

  after(async () => {
    await instance?.stop();
    await node?.close();
    await scratch?.drop();
  });

  it('answers 503 with Retry-After on every interface (userinfo and the token endpoint included), not 500, and serves again once the node is back', async () => {
    const config = scratch.config;
    if (config.client !== 'mysql') throw new Error('expected MySQL');
    // The instance's node restarts and rejoins: the same address now answers 1047 to every statement.
    await instance.proxy.redirect({ host: '127.0.0.1', port: node.port });
    const answers = await burst(instance, 10);
    for (const answer of answers) {
      expect(answer.status, answer.kind).to.equal(503);
      expect(answer.retryAfter, answer.kind).to.equal('1');
    }
    const health = await fetch(`${instance.origin}/healthz`);
    expect(health.status).to.equal(503);
    expect(await health.text()).not.to.match(/WSREP|1047/);
    await instance.proxy.redirect({ host: config.host, port: config.port });
    await timeToRecover(instance, 2000);
    expect(instance.logs.filter((line) => line.level >= 50).map((line) => line.msg)).to.deep.equal([]);
    const down = instance.logs.filter((line) => /^the database does not answer/.test(line.msg));
    expect(down).to.have.length(1);
    expect(down[0]?.cause).to.contain(NOT_READY);
  });
});
