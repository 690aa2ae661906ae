import { expect } from 'chai';
import { PREPARED_STATEMENTS_PER_CONNECTION } from '../src/db/statement-cache.js';
import { createScratchDatabase, type ScratchDatabase } from './support/databases.js';

interface RawConnection {
  prepare(sql: string): unknown;
}

/**
 * SQLite hot paths: the embedded store prepares each SQL text once per connection and reuses the
 * statement, bounded, and a reused statement still sees schema changes. SQLite only: MySQL has no such cache.
 */
describe('SQLite: prepared statements reused per connection', () => {
  let scratch: ScratchDatabase;
  let connection: RawConnection;

  before(async () => {
    scratch = await createScratchDatabase('sqlite', { migrate: false });
    // The pool holds one connection: the one knex's queries below run on.
    connection = (await scratch.db.client.acquireConnection()) as RawConnection;
    scratch.db.client.releaseConnection(connection);
  });
  after(async () => scratch.drop());

  it('answers a query from the statement prepared the first time its SQL ran', async () => {
    const rows = await scratch.db.raw('select ? + 1 as answer', [41]);
    expect(rows).to.deep.equal([{ answer: 42 }]);
    expect(connection.prepare('select ? + 1 as answer')).to.equal(connection.prepare('select ? + 1 as answer'));
    expect(await scratch.db.raw('select ? + 1 as answer', [1])).to.deep.equal([{ answer: 2 }]);
  });

  it('sees a column added after the statement was prepared, and rows written since', async () => {
    const { db } = scratch;
    await db.schema.createTable('statement_probe', (table) => table.integer('id').primary());
    await db('statement_probe').insert({ id: 1 });
    expect(await db('statement_probe').select('*')).to.deep.equal([{ id: 1 }]);
    await db.schema.alterTable('statement_probe', (table) => table.string('label').nullable());
    await db('statement_probe').insert({ id: 2, label: 'two' });
    expect(await db('statement_probe').select('*').orderBy('id')).to.deep.equal([
      { id: 1, label: null },
      { id: 2, label: 'two' },
    ]);
  });

  it('keeps at most its bound: the least recently used statement is prepared again', () => {
    const first = connection.prepare('select 0 as n');
    for (let n = 1; n <= PREPARED_STATEMENTS_PER_CONNECTION; n += 1) connection.prepare(`select ${n} as n`);
    expect(connection.prepare(`select ${PREPARED_STATEMENTS_PER_CONNECTION} as n`)).to.equal(connection.prepare(`select ${PREPARED_STATEMENTS_PER_CONNECTION} as n`));
    expect(connection.prepare('select 0 as n')).to.not.equal(first);
  });

  it('caches nothing for SQL that fails to prepare, and goes on answering', async () => {
    let refused: unknown = null;
    try {
      await scratch.db.raw('select from nowhere');
    } catch (error) {
      refused = error;
    }
    expect(String(refused)).to.match(/syntax error/);
    expect(await scratch.db.raw('select 7 as n')).to.deep.equal([{ n: 7 }]);
  });
});
