import { expect } from 'chai';
import type { Knex } from 'knex';
import { AppError, NotFoundError, ServiceUnavailableError, TransactionConflictError, ValidationError } from '../src/shared/errors.js';
import { classifyFailure, isRetryable } from '../src/shared/failure.js';
import { makeUser } from './support/oauth-fixtures.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken } from './support/member-api.js';
import { startTestServer, type TestServer } from './support/server.js';

function driverError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

const unreachable = () => driverError('connect ECONNREFUSED 127.0.0.1:3306', { code: 'ECONNREFUSED', errno: -111 });
const deadlock = () => driverError('Deadlock found when trying to get lock; try restarting transaction', { code: 'ER_LOCK_DEADLOCK', errno: 1213 });

describe('the failure classifier', () => {
  it('keeps a client error of the domain as it is, with its own status and code', () => {
    const invalid = new ValidationError('first must be positive', [{ pointer: '/first', message: 'must be positive' }]);
    expect(classifyFailure(invalid)).to.deep.equal({ kind: 'client', error: invalid });
    const missing = new NotFoundError('no such course');
    expect(classifyFailure(missing)).to.deep.equal({ kind: 'client', error: missing });
  });

  it('classifies an unreachable or timed-out database as database_unavailable: 503 temporarily_unavailable with Retry-After', () => {
    for (const raw of [unreachable(), driverError('read EPIPE', { code: 'EPIPE' }), driverError('unable to open database file', { code: 'SQLITE_CANTOPEN' }), Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' })]) {
      const failure = classifyFailure(raw);
      expect(failure.kind, raw.message).to.equal('database_unavailable');
      expect([failure.error.status, failure.error.code, failure.error.headers]).to.deep.equal([503, 'temporarily_unavailable', { 'Retry-After': '1' }]);
      expect(failure.error.message).to.equal('the database is unreachable; retry shortly');
      expect(isRetryable(failure)).to.equal(true);
    }
  });

  it('classifies a Galera node that lost the primary component or is not ready as database_unavailable, and its certification failure as a conflict', () => {
    const galeraUnavailable = [
      driverError('Got error 6 "No such device or address" during COMMIT', { code: 'ER_ERROR_DURING_COMMIT', errno: 1180 }),
      driverError('Not connected to Primary Component', { code: 'ER_ERROR_DURING_COMMIT', errno: 1180 }),
      driverError('WSREP has not yet prepared node for application use', { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 }),
      driverError('Unknown command', { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 }),
      driverError('Not connected to Primary Component', {}),
    ];
    for (const raw of galeraUnavailable) {
      const failure = classifyFailure(raw);
      expect(failure.kind, raw.message).to.equal('database_unavailable');
      expect([failure.error.status, failure.error.code]).to.deep.equal([503, 'temporarily_unavailable']);
    }
    expect(classifyFailure(driverError('WSREP detected deadlock/conflict and aborted the transaction. Try restarting the transaction', { code: 'ER_LOCK_DEADLOCK', errno: 1213 })).kind).to.equal('conflict_lost');
  });

  it('classifies a transaction that kept losing, and a lone statement that lost, as conflict_lost: 503 temporarily_unavailable', () => {
    const exhausted = new TransactionConflictError(8);
    expect(classifyFailure(exhausted)).to.deep.equal({ kind: 'conflict_lost', error: exhausted });
    for (const raw of [deadlock(), driverError('Deadlock: wsrep aborted transaction', { errno: 1213 }), driverError('Lock wait timeout exceeded', { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 })]) {
      const failure = classifyFailure(raw);
      expect(failure.kind, raw.message).to.equal('conflict_lost');
      expect([failure.error.status, failure.error.code, failure.error.headers]).to.deep.equal([503, 'temporarily_unavailable', { 'Retry-After': '1' }]);
      expect(isRetryable(failure)).to.equal(true);
    }
  });

  it('reads SQLite busy past the busy timeout as the store not answering in time', () => {
    expect(classifyFailure(driverError('database is locked', { code: 'SQLITE_BUSY' })).kind).to.equal('database_unavailable');
  });

  it('keeps a 503 of ours as unavailable', () => {
    const busy = new ServiceUnavailableError('the school is being moved; retry shortly');
    expect(classifyFailure(busy)).to.deep.equal({ kind: 'database_unavailable', error: busy });
  });

  it('turns errors Koa raises with a client status, and undecodable bodies, into client errors', () => {
    expect(classifyFailure(Object.assign(new Error('request entity too large'), { status: 413 })).error).to.include({ status: 413, code: 'request_too_large' });
    expect(classifyFailure(Object.assign(new Error('invalid JSON'), { status: 400 })).error).to.include({ status: 400, code: 'invalid_request' });
    const zlib = classifyFailure(driverError('incorrect header check', { code: 'Z_DATA_ERROR' }));
    expect(zlib.kind).to.equal('client');
    expect(zlib.error).to.include({ status: 400, code: 'invalid_request' });
  });

  it('masks anything else as internal, and keeps a 5xx error of ours as it is', () => {
    for (const raw of [new TypeError('cannot read properties of undefined'), driverError("Duplicate entry 'x' for key 'y'", { code: 'ER_DUP_ENTRY', errno: 1062 }), 'a string', null, Object.assign(new Error('boom'), { status: 502 })]) {
      const failure = classifyFailure(raw);
      expect(failure.kind).to.equal('internal');
      expect([failure.error.status, failure.error.code, failure.error.message]).to.deep.equal([500, 'server_error', 'the server failed to handle the request']);
      expect(isRetryable(failure)).to.equal(false);
    }
    const ours = new AppError(500, 'server_error', 'the signing key could not be read');
    expect(classifyFailure(ours)).to.deep.equal({ kind: 'internal', error: ours });
  });
});

/** A pooled connection as the drivers give it: better-sqlite3 prepares, mysql2 queries (knex) or executes (prepared statements). */
interface DriverConnection {
  prepare?: (sql: string, ...rest: unknown[]) => unknown;
  query?: (...args: unknown[]) => unknown;
  execute?: (...args: unknown[]) => unknown;
}
type PoolClient = { acquireConnection: (...args: unknown[]) => Promise<DriverConnection> };

const sqlOf = (statement: unknown): string => (typeof statement === 'string' ? statement : String((statement as { sql?: unknown } | null)?.sql ?? ''));

/**
 * Makes every statement whose SQL matches `pattern` fail with `error()`, as the driver raises it, until the returned
 * function is called: at the driver, so a statement fails whichever way it runs (knex's runner or a compiled select on
 * a pooled connection). Authentication reads other tables, so the failure happens inside the operation.
 */
function failStatements(db: Knex, pattern: RegExp, error: () => Error): () => void {
  const client = db.client as unknown as PoolClient;
  const acquire = client.acquireConnection;
  let active = true;
  const failing = (statement: unknown) => active && pattern.test(sqlOf(statement));
  const patched = new WeakSet<DriverConnection>();
  const patch = (connection: DriverConnection) => {
    if (patched.has(connection)) return;
    patched.add(connection);
    const { prepare, query, execute } = connection;
    if (prepare) {
      connection.prepare = function (this: unknown, sql, ...rest) {
        if (failing(sql)) throw error();
        return prepare.call(this, sql, ...rest);
      };
    }
    for (const [name, method] of [['query', query], ['execute', execute]] as const) {
      if (!method) continue;
      connection[name] = function (this: unknown, ...args: unknown[]) {
        const callback = args.at(-1);
        if (failing(args[0]) && typeof callback === 'function') {
          setImmediate(() => (callback as (error: Error) => void)(error()));
          return undefined;
        }
        return method.apply(this, args);
      };
    }
  };
  client.acquireConnection = async function (this: unknown, ...args: unknown[]) {
    const connection = await acquire.apply(this, args);
    patch(connection);
    return connection;
  };
  return () => {
    active = false;
    client.acquireConnection = acquire;
  };
}

async function mcpToolCall(origin: string, name: string, token: string | null): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });
}

describeEachDatabase('GraphQL and MCP answer a database that cannot answer like every other interface', (scratch) => {
  let server: TestServer;
  let token: string;

  before(async function () {
    this.timeout(60000);
    server = await startTestServer(scratch());
    const member = await makeUser(scratch().db, server.siteA, ['student'], 'Outage Olive');
    token = await memberToken(scratch().db, server.siteA, member);
  });
  after(async () => server.stop());

  const COURSES = '{ viewer { enrolledCourses { nodes { title } } } }';

  for (const [fault, error] of [
    ['an unreachable database', unreachable],
    ['a lost conflict', deadlock],
  ] as const) {
    it(`GraphQL: ${fault} inside the operation is HTTP 503 temporarily_unavailable with Retry-After, not a 200 with a masked error`, async () => {
      const healthy = await gql(server.siteA.origin, 'A', token, COURSES);
      expect(healthy.status).to.equal(200);
      const restore = failStatements(scratch().db, /\benrollments\b/, error);
      try {
        const answer = await gql(server.siteA.origin, 'A', token, COURSES);
        expect(answer.status).to.equal(503);
        expect(answer.headers.get('retry-after')).to.equal('1');
        expect(answer.headers.get('www-authenticate'), 'no challenge: the client keeps its token').to.equal(null);
        expect(answer.headers.get('content-type')).to.match(/^application\/json/);
        expect(answer).to.include({ error: 'temporarily_unavailable' });
        expect(answer.data).to.equal(undefined);
        expect(answer.errors?.[0]?.extensions).to.deep.equal({ code: 'temporarily_unavailable' });
        expect(answer.errors?.[0]?.message).to.match(/retry shortly/);
      } finally {
        restore();
      }
      expect((await gql(server.siteA.origin, 'A', token, COURSES)).status).to.equal(200);
    });

    it(`MCP: ${fault} inside a tool is the retryable tool error temporarily_unavailable, not server_error`, async () => {
      const restore = failStatements(scratch().db, /\bcourses\b/, error);
      try {
        for (const [name, caller] of [
          ['search_courses', null],
          ['list_my_courses', token],
        ] as const) {
          const response = await mcpToolCall(server.siteA.origin, name, caller);
          expect(response.status, name).to.equal(200);
          const answer = (await response.json()) as { result: { isError?: boolean; content: Array<{ text: string }> } };
          expect(answer.result.isError, name).to.equal(true);
          expect(JSON.parse(answer.result.content[0]?.text ?? '{}'), name).to.deep.include({ error: 'temporarily_unavailable' });
        }
      } finally {
        restore();
      }
    });
  }

  it('GraphQL: authentication that cannot reach the database answers 503 in the member API format, OAuth and GraphQL clients alike', async () => {
    const restore = failStatements(scratch().db, /\btoken_pairs\b/, unreachable);
    try {
      const answer = await gql(server.siteA.origin, 'A', token, COURSES);
      expect(answer.status).to.equal(503);
      expect(answer.headers.get('retry-after')).to.equal('1');
      expect(answer).to.include({ error: 'temporarily_unavailable' });
      expect(answer.errors?.[0]?.extensions).to.deep.equal({ code: 'temporarily_unavailable' });
    } finally {
      restore();
    }
  });
});
