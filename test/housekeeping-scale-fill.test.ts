import { expect } from 'chai';
import { prune } from '../src/housekeeping/prune.js';
import { bulkSession, schemaOf, withoutSecondaryIndexes } from './bench/scale/token-fill.js';
import { writeCopies, writeSeed } from './bench/scale/tokens.scale.js';
import { describeEachDatabase } from './support/databases.js';
import { makeOwner } from './support/housekeeping-fixtures.js';

/** bench:scale fills token_pairs for the prune's measurements with its indexes dropped: the schema must come back whole. */
describeEachDatabase('bench:scale bulk fill of token pairs', (scratch) => {
  it('drops the secondary indexes for the fill, builds them again as they were, and the rows are what a plain fill writes', async function () {
    this.timeout(60_000);
    const { db, kind } = scratch();
    const owner = await makeOwner(db, 'bulk');
    await writeSeed(db, owner, 50);
    const before = await schemaOf(db, kind, 'token_pairs');
    expect(before).to.match(/access_token_hash/);
    let schemaDuringFill = '';
    await withoutSecondaryIndexes(db, kind, 'token_pairs', () =>
      bulkSession(db, kind, async (writer) => {
        schemaDuringFill = await schemaOf(writer, kind, 'token_pairs');
        await writeCopies(writer, kind, 50, [1, 2, 3]);
      }),
    );
    expect(schemaDuringFill).to.not.equal(before);
    expect(schemaDuringFill).to.not.match(/refresh_token_hash_unique/);
    expect(await schemaOf(db, kind, 'token_pairs')).to.equal(before);
    const rows = (await db('token_pairs').select('access_token_hash')) as Array<{ access_token_hash: string }>;
    expect(new Set(rows.map((row) => row.access_token_hash)).size).to.equal(200);
    expect((await prune(db, { dryRun: true })).deleted.token_pairs).to.equal(180);
  });
});
