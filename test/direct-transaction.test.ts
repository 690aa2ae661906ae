import { expect } from 'chai';
import { openDatabase } from '../src/db/connection.js';
import { CompiledStatement, compiledInsert } from '../src/db/direct-statements.js';
import { withDirectTransaction, type TransactionStatements } from '../src/db/direct-transaction.js';
import { withTransaction } from '../src/db/transaction.js';
import { TransactionConflictError } from '../src/shared/errors.js';
import { recordFirstUse, rotatePair } from '../src/oauth/tokens/rotation.js';
import { insertPair, insertPairIn, newGrantId, type PairRow } from '../src/oauth/tokens/store.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/server.js';
import { makeClient, makeUser } from './support/oauth-fixtures.js';
import { statementsOf } from './support/statements.js';
import { galeraNodeRefusing } from './support/galera-refusing-node.js';

function driverError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

const READ = new CompiledStatement<[number]>((db, id) => db('direct_probe').where({ id }).forUpdate().select('id', 'v', 'at'));
const BUMP = new CompiledStatement<[number, number]>((db, v, id) => db('direct_probe').where({ id }).update({ v }));
const ADD = compiledInsert('direct_probe', ['v', 'at']);

/** The direct transaction: withTransaction's statements, reruns and errors, without knex's runner. */
describe('withDirectTransaction', () => {
  for (const kind of TEST_DATABASE_KINDS) {
    describe(`[${kind}]`, () => {
      let scratch: ScratchDatabase;
      before(async function () {
        this.timeout(60000);
        scratch = await createScratchDatabase(kind, { migrate: false });
        await scratch.db.schema.createTable('direct_probe', (t) => {
          t.increments('id').primary();
          t.integer('v').notNullable();
          t.dateTime('at', { precision: 3 }).nullable();
        });
        await scratch.db('direct_probe').insert([
          { v: 0, at: null },
          { v: 0, at: null },
        ]);
      });
      after(async () => scratch.drop());

      const value = async (id: number) => Number((await scratch.db('direct_probe').where({ id }).first('v')).v);

      it('issues what withTransaction issues, BEGIN and COMMIT included, and commits', async () => {
        const viaKnex = await statementsOf(scratch.db, () =>
          withTransaction(scratch.db, async (trx) => {
            await trx.raw(READ.sql(trx, [1]), [1]);
            await trx.raw(BUMP.sql(trx, [5, 1]), [5, 1]);
          }),
        );
        const direct = await statementsOf(scratch.db, () =>
          withDirectTransaction(scratch.db, async (tx) => {
            const rows = await tx.rows<{ v: number }, [number]>(READ, [1]);
            expect(rows.map((row) => Number(row.v))).to.deep.equal([5]);
            const { changes } = await tx.write(BUMP, [7, 1]);
            expect(changes).to.equal(1);
          }),
        );
        expect(direct).to.deep.equal(viaKnex);
        expect(direct[0]).to.equal('BEGIN;');
        expect(direct.at(-1)).to.equal('COMMIT;');
        expect(await value(1)).to.equal(7);
      });

      it('answers an INSERT’s id, and writes times as knex writes them', async () => {
        const at = new Date('2026-01-02T03:04:05.678Z');
        const id = await withDirectTransaction(scratch.db, async (tx) => (await tx.write(ADD.statement, ADD.values({ v: 3, at }))).insertId);
        const [viaKnex] = await scratch.db('direct_probe').insert({ v: 3, at });
        const rows = await scratch.db('direct_probe').whereIn('id', [id, Number(viaKnex)]).orderBy('id').select('v', 'at');
        expect(rows).to.have.length(2);
        expect(rows[0]).to.deep.equal(rows[1]);
      });

      it('rolls back work that throws, with ROLLBACK, and passes its error through without a rerun', async () => {
        let runs = 0;
        let failure: unknown = null;
        const before = await value(2);
        const statements = await statementsOf(scratch.db, () =>
          withDirectTransaction(scratch.db, async (tx) => {
            runs += 1;
            await tx.write(BUMP, [before + 1, 2]);
            throw new RangeError('not a conflict');
          }).catch((error: unknown) => {
            failure = error;
          }),
        );
        expect(failure).to.be.instanceOf(RangeError);
        expect(runs).to.equal(1);
        expect(statements[0]).to.equal('BEGIN;');
        expect(statements.at(-1)).to.equal('ROLLBACK');
        expect(await value(2)).to.equal(before);
      });

      it('reruns the whole transaction after a conflict and commits the rerun only', async () => {
        let runs = 0;
        const before = await value(1);
        const result = await withDirectTransaction(scratch.db, async (tx) => {
          runs += 1;
          const [row] = await tx.rows<{ v: number }, [number]>(READ, [1]);
          await tx.write(BUMP, [Number(row?.v) + 1, 1]);
          if (runs < 3) throw driverError('Deadlock found when trying to get lock; try restarting transaction', { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
          return 'done';
        });
        expect({ result, runs }).to.deep.equal({ result: 'done', runs: 3 });
        expect(await value(1)).to.equal(before + 1);
      });

      it('gives up after the bounded number of runs with TransactionConflictError, writing nothing', async () => {
        let runs = 0;
        const before = await value(2);
        const failure = await withDirectTransaction(
          scratch.db,
          async (tx) => {
            runs += 1;
            await tx.write(BUMP, [before + 1, 2]);
            throw driverError('database is locked', { code: 'SQLITE_BUSY' });
          },
          { attempts: 4 },
        ).catch((error: unknown) => error);
        expect(failure).to.be.instanceOf(TransactionConflictError);
        expect(runs).to.equal(4);
        expect(await value(2)).to.equal(before);
      });

      it('refuses a statement once the transaction has ended', async () => {
        const kept = await withDirectTransaction(scratch.db, async (tx) => tx);
        const late = await kept.rows(READ, [1]).catch((error: unknown) => error);
        expect(late).to.be.instanceOf(Error);
      });

      it('joins a knex transaction it runs in (a savepoint), without reruns of its own', async () => {
        let outerRuns = 0;
        let innerRuns = 0;
        await withTransaction(scratch.db, async (outer) => {
          outerRuns += 1;
          await withDirectTransaction(outer, async (tx) => {
            innerRuns += 1;
            await tx.rows(READ, [1]);
            if (outerRuns === 1) throw driverError('Deadlock found', { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
          });
        });
        expect({ outerRuns, innerRuns }).to.deep.equal({ outerRuns: 2, innerRuns: 2 });
      });

      it('returns its connection to the pool after a failed statement', async () => {
        const broken = new CompiledStatement<[number]>((db, id) => db('no_such_table').where({ id }).select('id'));
        for (let round = 0; round < 3; round += 1) {
          const failure = await withDirectTransaction(scratch.db, (tx) => tx.rows(broken, [1])).catch((error: unknown) => error);
          expect(failure).to.be.instanceOf(Error);
          expect((failure as Error).message).to.match(/no_such_table/);
        }
        expect(await value(1)).to.be.a('number');
      });

      if (kind === 'mysql') {
        it('survives a real InnoDB deadlock: two transactions locking two rows in opposite order both commit, one of them rerun', async function () {
          this.timeout(60000);
          await scratch.db('direct_probe').whereIn('id', [1, 2]).update({ v: 0 });
          let runs = 0;
          let arrived = 0;
          let release: () => void = () => undefined;
          const bothHoldTheirFirstRow = new Promise<void>((resolve) => (release = resolve));
          const bump = async (tx: TransactionStatements, id: number) => {
            const [row] = await tx.rows<{ v: number }, [number]>(READ, [id]);
            await tx.write(BUMP, [Number(row?.v) + 1, id]);
          };
          const crossing = (first: number, second: number) =>
            withDirectTransaction(scratch.db, async (tx) => {
              runs += 1;
              await bump(tx, first);
              if (runs <= 2) {
                arrived += 1;
                if (arrived === 2) release();
                await bothHoldTheirFirstRow;
              }
              await bump(tx, second);
            });
          await Promise.all([crossing(1, 2), crossing(2, 1)]);
          expect(runs).to.equal(3);
          expect((await scratch.db('direct_probe').whereIn('id', [1, 2]).orderBy('id').select('v')).map((row: { v: number }) => row.v)).to.deep.equal([2, 2]);
        });
      }
    });
  }
});

/** The refresh grant's direct transaction: the rows it inserts are knex's, and reuse found under its lock ends the grant. */
describe('the refresh grant on a direct transaction', () => {
  for (const kind of TEST_DATABASE_KINDS) {
    describe(`[${kind}]`, () => {
      let scratch: ScratchDatabase;
      let server: TestServer;
      before(async function () {
        this.timeout(120000);
        scratch = await createScratchDatabase(kind);
        server = await startTestServer(scratch, { variant: 'A' });
      });
      after(async () => {
        await server?.stop();
        await scratch?.drop();
      });

      it('writes the same columns as insertPair', async () => {
        const { db } = scratch;
        const site = server.siteA;
        const owner = await makeUser(db, site, ['student'], 'Direct Insert Owner');
        const app = await makeClient(db, site, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'] });
        const now = new Date('2026-03-04T05:06:07.891Z');
        const input = { grantId: newGrantId(), siteId: site.id, clientRef: app.client.ref, userId: owner.id, scopes: ['openid', 'account:read'] as const, resource: site.origin, schoolId: site.id, authTime: new Date('2026-03-04T05:00:00.123Z'), sid: 'sid-1', dpopJkt: null };
        const parent = await insertPair(db, input, now);
        const viaKnex = await insertPair(db, { ...input, parentPairId: parent.pair.id }, now);
        const direct = await withDirectTransaction(db, (tx) => insertPairIn(tx, { ...input, parentPairId: parent.pair.id }, now));
        const rows = await db<PairRow>('token_pairs').whereIn('id', [viaKnex.pair.id, direct.pair.id]).orderBy('id');
        const comparable = (row: PairRow | undefined) => ({ ...row, id: undefined, access_token_hash: undefined, refresh_token_hash: undefined });
        expect(rows).to.have.length(2);
        expect(comparable(rows[1])).to.deep.equal(comparable(rows[0]));
        expect(direct.pair).to.deep.equal({ ...viaKnex.pair, id: direct.pair.id });
      });

      it('rotatePair: a pair found rotated under its lock (read live before) is reuse, and its whole grant ends', async () => {
        const { db } = scratch;
        const site = server.siteA;
        const owner = await makeUser(db, site, ['student'], 'Direct Reuse Owner');
        const app = await makeClient(db, site, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'] });
        const first = await insertPair(db, { grantId: newGrantId(), siteId: site.id, clientRef: app.client.ref, userId: owner.id, scopes: ['openid', 'account:read'], resource: site.origin, schoolId: site.id, authTime: new Date() });
        const rotated = await rotatePair(db, first.pair, first.pair.scopes);
        if (rotated.kind !== 'rotated') throw new Error(`the first rotation was refused: ${rotated.reason}`);
        // The successor's first use retires the first pair (reason rotated); `first.pair` still says it is live.
        expect(await recordFirstUse(db, rotated.issued.pair)).to.equal(true);
        const again = await rotatePair(db, first.pair, first.pair.scopes);
        expect(again).to.deep.equal({ kind: 'refused', reason: 'rotated' });
        const rows = await db<PairRow>('token_pairs').where({ grant_id: first.pair.grantId }).orderBy('id').select('id', 'revoked_reason');
        expect(rows.map((row) => row.revoked_reason)).to.deep.equal(['rotated', 'reuse_detected']);
      });
    });
  }
});

describe('a direct transaction whose ROLLBACK or COMMIT was refused (a Galera node, errno 1047)', function () {
  this.timeout(60_000);

  for (const ending of ['ROLLBACK', 'COMMIT'] as const) {
    it(`${ending}: fails with the refusal, and its connection is destroyed, never handed out again`, async () => {
      const node = await galeraNodeRefusing(ending === 'ROLLBACK' ? /^\s*ROLLBACK\b/i : /^\s*COMMIT\b/i);
      const db = openDatabase({ client: 'mysql', url: `mysql://root@127.0.0.1:${node.port}/x`, host: '127.0.0.1', port: node.port, user: 'root', password: '', database: 'x' }, () => undefined);
      try {
        const failure = await withDirectTransaction(db, async () => {
          if (ending === 'ROLLBACK') throw new RangeError('the work failed');
        }).catch((error: unknown) => error);
        expect(failure).to.be.instanceOf(Error);
        expect((failure as Error).message).to.match(/WSREP has not yet prepared node/);
        const refusedOn = node.statements.find((statement) => statement.sql.startsWith(ending));
        expect(refusedOn, `the transaction ended with ${ending}`).not.to.equal(undefined);
        await db.raw('DO 2');
        await db.raw('DO 3');
        const later = node.statements.filter((statement) => /^DO [23]$/.test(statement.sql));
        expect(later).to.have.length(2);
        for (const statement of later) expect(statement.connection, statement.sql).not.to.equal(refusedOn?.connection);
      } finally {
        await db.destroy();
        await node.close();
      }
    });
  }
});
