import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import mysql from 'mysql2';
import { openDatabase, type Database } from '../src/db/connection.js';
import { withTransaction } from '../src/db/transaction.js';

interface Statement {
  connection: number;
  sql: string;
}

/**
 * A server speaking the MySQL protocol as a Galera node that refuses ROLLBACK (errno 1047) while it answers every
 * other statement: a connection whose rollback it refused stays inside its transaction, with its old snapshot.
 * Records which connection ran each statement, and which connections were closed.
 */
async function nodeRefusingRollback(): Promise<{ port: number; statements: Statement[]; closed: Set<number>; close(): Promise<void> }> {
  const statements: Statement[] = [];
  const closed = new Set<number>();
  let opened = 0;
  const server = mysql.createServer((connection) => {
    opened += 1;
    const id = opened;
    connection.serverHandshake({
      protocolVersion: 10,
      serverVersion: '10.11.0-MariaDB-galera',
      connectionId: id,
      statusFlags: 2,
      characterSet: 8,
      capabilityFlags: 0xffffff & ~(0x800 | 0x20),
      authCallback: (_params: unknown, done: (error: null, mysqlError?: null) => void) => done(null, null),
    });
    connection.on('query', (sql: string) => {
      statements.push({ connection: id, sql });
      if (/^\s*ROLLBACK\b/i.test(sql)) connection.writeError({ code: 1047, message: 'WSREP has not yet prepared node for application use' });
      else connection.writeOk();
    });
    // mysql2's server hands SET statements to its prepared-statement event.
    connection.on('stmt_prepare', (sql: string) => {
      statements.push({ connection: id, sql });
      connection.writeOk();
    });
    connection.on('end', () => closed.add(id));
    connection.on('error', () => closed.add(id));
  });
  const listener = (server as unknown as { _server: net.Server })._server;
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  const { port } = listener.address() as AddressInfo;
  return { port, statements, closed, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('a connection whose ROLLBACK was refused (a Galera node, errno 1047)', function () {
  this.timeout(60_000);
  let node: Awaited<ReturnType<typeof nodeRefusingRollback>>;
  let db: Database;
  const warnings: string[] = [];

  before(async () => {
    node = await nodeRefusingRollback();
    db = openDatabase({ client: 'mysql', url: `mysql://root@127.0.0.1:${node.port}/x`, host: '127.0.0.1', port: node.port, user: 'root', password: '', database: 'x' }, (message) => warnings.push(message));
  });

  after(async () => {
    await db?.destroy();
    await node?.close();
  });

  it('is destroyed, never handed out again: the next statement runs on a new connection', async () => {
    let failed: unknown = null;
    await withTransaction(db, async (trx) => {
      await trx.raw('DO 1');
      throw new Error('the work failed');
    }).catch((error: unknown) => {
      failed = error;
    });
    expect(failed).to.be.instanceOf(Error);
    const rollback = node.statements.find((statement) => /^ROLLBACK\b/i.test(statement.sql));
    expect(rollback, 'the transaction was rolled back').not.to.equal(undefined);
    await db.raw('DO 2');
    await db.raw('DO 3');
    const later = node.statements.filter((statement) => /^DO [23]$/.test(statement.sql));
    expect(later).to.have.length(2);
    for (const statement of later) expect(statement.connection, statement.sql).not.to.equal(rollback?.connection);
  });
});
