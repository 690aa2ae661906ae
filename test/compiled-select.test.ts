import { expect } from 'chai';
import { compiledSelect } from '../src/db/compiled-select.js';
import { PREPARED_STATEMENTS_PER_CONNECTION } from '../src/db/statement-cache.js';
import { describeEachDatabase } from './support/databases.js';

/** The token read is compiled once and only bound afterwards; it must answer what knex's builder answers. */
describeEachDatabase('compiledSelect', (scratch) => {
  before(async () => {
    const { db } = scratch();
    await db.schema.createTable('compiled_probe', (table) => {
      table.integer('id').primary();
      table.string('name', 40).notNullable();
      table.integer('size').notNullable();
    });
    await db('compiled_probe').insert([
      { id: 1, name: 'alpha', size: 10 },
      { id: 2, name: 'beta', size: 20 },
      { id: 3, name: 'beta', size: 30 },
    ]);
  });

  it('answers, for each new value, the rows the query builder answers, from SQL compiled on the first call', async () => {
    const { db } = scratch();
    const build = (name: string, minimum: number) => db('compiled_probe as p').where('p.name', name).where('p.size', '>=', minimum).orderBy('p.id').select('p.id', 'p.size as bytes');
    let builds = 0;
    const select = compiledSelect<{ id: number; bytes: number }, [string, number]>((_db, name, minimum) => {
      builds += 1;
      return build(name, minimum);
    });
    for (const [name, minimum] of [['beta', 0], ['beta', 25], ['alpha', 0], ['gamma', 0]] as const) {
      const rows = await select(db, name, minimum);
      expect(rows.map((row) => ({ ...row }))).to.deep.equal((await build(name, minimum)).map((row: Record<string, unknown>) => ({ ...row })));
    }
    expect(builds).to.equal(1);
  });

  it('compiles one text per number of values up to maxValues, and builds a call with more values each time', async () => {
    const { db } = scratch();
    let builds = 0;
    const select = compiledSelect<{ id: number }, number[]>(
      (_db, ...ids) => {
        builds += 1;
        return db('compiled_probe').whereIn('id', ids).orderBy('id').select('id');
      },
      { maxValues: 2 },
    );
    const ids = async (...values: number[]) => (await select(db, ...values)).map((row) => Number(row.id));
    expect(await ids(1)).to.deep.equal([1]);
    expect(await ids(3)).to.deep.equal([3]);
    expect(await ids(1, 2)).to.deep.equal([1, 2]);
    expect(await ids(2, 3)).to.deep.equal([2, 3]);
    expect(builds).to.equal(2);
    expect(await ids(1, 2, 3)).to.deep.equal([1, 2, 3]);
    expect(await ids(3, 2, 1)).to.deep.equal([1, 2, 3]);
    expect(builds).to.equal(4);
  });

  it('refuses a statement that binds anything but the values it is given', async () => {
    const { db } = scratch();
    const select = compiledSelect<{ id: number }, [string]>((_db, name) => db('compiled_probe').where('name', name).where('size', '>', 5).select('id'));
    let refused: unknown = null;
    try {
      await select(db, 'beta');
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(Error);
    expect((refused as Error).message).to.match(/must bind exactly the values it is given/);
  });

  it('keeps at most the bounded number of prepared statements on a MySQL connection, preparing an evicted text again', async function () {
    const { db, kind } = scratch();
    if (kind !== 'mysql') this.skip();
    // More texts than one connection keeps: one per number of values, each a server-side prepared statement.
    const texts = PREPARED_STATEMENTS_PER_CONNECTION + 40;
    const select = compiledSelect<{ id: number }, number[]>((_db, ...ids) => db('compiled_probe').whereIn('id', ids).orderBy('id').select('id'));
    const ids = async (...values: number[]) => (await select(db, ...values)).map((row) => Number(row.id));
    for (let count = 1; count <= texts; count += 1) expect(await ids(...Array.from({ length: count }, (_, index) => (index % 3) + 1))).to.deep.equal([1, 2, 3].slice(0, count));
    // The first texts were evicted from their connection's cache (and closed there): asked again, they are prepared again.
    expect(await ids(1)).to.deep.equal([1]);
    expect(await ids(3, 1)).to.deep.equal([1, 3]);
    const client = db.client as { pool: { free: Array<{ resource: { config: { maxPreparedStatements: number }; _statements: { size: number } } }> } };
    const connections = client.pool.free.map((free) => free.resource);
    expect(connections.length).to.be.above(0);
    for (const connection of connections) {
      expect(connection.config.maxPreparedStatements).to.equal(PREPARED_STATEMENTS_PER_CONNECTION);
      expect(connection._statements.size).to.be.at.most(PREPARED_STATEMENTS_PER_CONNECTION);
    }
  });
});
