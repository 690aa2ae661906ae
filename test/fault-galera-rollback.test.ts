import { expect } from 'chai';
import { openDatabase, type Database } from '../src/db/connection.js';
import { withTransaction } from '../src/db/transaction.js';
import { galeraNodeRefusing, type RefusingNode } from './support/galera-refusing-node.js';

describe('a connection whose ROLLBACK was refused (a Galera node, errno 1047)', function () {
  this.timeout(60_000);
  let node: RefusingNode;
  let db: Database;
  const warnings: string[] = [];

  before(async () => {
    node = await galeraNodeRefusing(/^\s*ROLLBACK\b/i);
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
