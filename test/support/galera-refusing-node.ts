import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import mysql from 'mysql2';

export interface NodeStatement {
  connection: number;
  sql: string;
}

export interface RefusingNode {
  port: number;
  statements: NodeStatement[];
  /** The connections whose socket was closed (a connection the pool destroys closes its socket). */
  closed: Set<number>;
  close(): Promise<void>;
}

/**
 * A server speaking the MySQL protocol as a Galera node that refuses the statements `refused` matches (errno 1047)
 * and answers every other one: a connection whose ROLLBACK or COMMIT it refused stays inside its transaction, with
 * its old snapshot. Records which connection ran each statement, and which connections were closed.
 */
export async function galeraNodeRefusing(refused: RegExp): Promise<RefusingNode> {
  const statements: NodeStatement[] = [];
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
      if (refused.test(sql)) connection.writeError({ code: 1047, message: 'WSREP has not yet prepared node for application use' });
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
