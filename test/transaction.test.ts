import { expect } from 'chai';
import { toAppError } from '../src/http/errors.js';
import { withTransaction } from '../src/db/transaction.js';
import { TransactionConflictError } from '../src/shared/errors.js';
import { isTransactionConflict } from '../src/shared/failure.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';

function driverError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

/** One transaction helper that reruns conflicts, then answers 503, never 500. */
describe('withTransaction', () => {
  it('recognises deadlocks, lock-wait timeouts, Galera certification failures and SQLite busy errors, and nothing else', () => {
    expect(isTransactionConflict(driverError('Deadlock found when trying to get lock; try restarting transaction', { code: 'ER_LOCK_DEADLOCK', errno: 1213 }))).to.equal(true);
    expect(isTransactionConflict(driverError('Lock wait timeout exceeded; try restarting transaction', { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 }))).to.equal(true);
    expect(isTransactionConflict(driverError('Deadlock: wsrep aborted transaction', { errno: 1213 }))).to.equal(true);
    expect(isTransactionConflict(driverError('WSREP detected deadlock/conflict and aborted the transaction. Try restarting the transaction', { errno: 4031 }))).to.equal(true);
    expect(isTransactionConflict(driverError('database is locked', { code: 'SQLITE_BUSY' }))).to.equal(true);
    expect(isTransactionConflict(driverError("Duplicate entry 'x' for key 'y'", { code: 'ER_DUP_ENTRY', errno: 1062 }))).to.equal(false);
    expect(isTransactionConflict(driverError('connect ECONNREFUSED', { code: 'ECONNREFUSED' }))).to.equal(false);
    expect(isTransactionConflict('ER_LOCK_DEADLOCK')).to.equal(false);
  });

  it('renders a transaction that kept losing, or a lone statement that lost, as 503 temporarily_unavailable with Retry-After', () => {
    const error = toAppError(new TransactionConflictError(8));
    expect(error.status).to.equal(503);
    expect(error.code).to.equal('temporarily_unavailable');
    expect(error.headers).to.deep.equal({ 'Retry-After': '1' });
    const statement = toAppError(driverError('Deadlock: wsrep aborted transaction', { code: 'ER_LOCK_DEADLOCK', errno: 1213 }));
    expect([statement.status, statement.code]).to.deep.equal([503, 'temporarily_unavailable']);
  });

  for (const kind of TEST_DATABASE_KINDS) {
    describe(`[${kind}]`, () => {
      let scratch: ScratchDatabase;
      before(async function () {
        this.timeout(60000);
        scratch = await createScratchDatabase(kind, { migrate: false });
        await scratch.db.schema.createTable('probe', (t) => {
          t.integer('id').primary();
          t.integer('v').notNullable();
        });
        await scratch.db('probe').insert([
          { id: 1, v: 0 },
          { id: 2, v: 0 },
        ]);
      });
      after(async () => scratch.drop());

      it('reruns the whole transaction after a conflict and commits the rerun only', async () => {
        let runs = 0;
        const result = await withTransaction(scratch.db, async (trx) => {
          runs += 1;
          await trx('probe').where({ id: 1 }).increment('v', 1);
          if (runs < 3) throw driverError('Deadlock found when trying to get lock; try restarting transaction', { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
          return 'done';
        });
        expect({ result, runs }).to.deep.equal({ result: 'done', runs: 3 });
        expect((await scratch.db('probe').where({ id: 1 }).first('v')).v).to.equal(1);
      });

      it('gives up after the bounded number of runs with TransactionConflictError, writing nothing', async () => {
        let runs = 0;
        const before = (await scratch.db('probe').where({ id: 2 }).first('v')).v as number;
        const failure = await withTransaction(
          scratch.db,
          async (trx) => {
            runs += 1;
            await trx('probe').where({ id: 2 }).increment('v', 1);
            throw driverError('database is locked', { code: 'SQLITE_BUSY' });
          },
          { attempts: 4 },
        ).catch((error: unknown) => error);
        expect(failure).to.be.instanceOf(TransactionConflictError);
        expect(runs).to.equal(4);
        expect((await scratch.db('probe').where({ id: 2 }).first('v')).v).to.equal(before);
      });

      it('passes other errors through at once, without a rerun', async () => {
        let runs = 0;
        const failure = await withTransaction(scratch.db, async () => {
          runs += 1;
          throw new RangeError('not a conflict');
        }).catch((error: unknown) => error);
        expect(failure).to.be.instanceOf(RangeError);
        expect(runs).to.equal(1);
      });

      it('does not rerun a transaction nested in another: the outer one is the one to rerun', async () => {
        let outerRuns = 0;
        let innerRuns = 0;
        await withTransaction(scratch.db, async (outer) => {
          outerRuns += 1;
          await withTransaction(outer, async () => {
            innerRuns += 1;
            if (outerRuns === 1) throw driverError('Deadlock found', { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
          });
        });
        expect({ outerRuns, innerRuns }).to.deep.equal({ outerRuns: 2, innerRuns: 2 });
      });

      if (kind === 'mysql') {
        it('reads causally on a Galera cluster: every pooled connection has wsrep_sync_wait = 1', async () => {
          const rows = await Promise.all(Array.from({ length: 3 }, () => scratch.db.raw('SELECT @@SESSION.wsrep_sync_wait AS value')));
          expect(rows.map((result: Array<Array<{ value: number }>>) => Number(result[0]?.[0]?.value))).to.deep.equal([1, 1, 1]);
        });

        it('survives a real InnoDB deadlock: two transactions locking two rows in opposite order both commit, one of them rerun', async function () {
          this.timeout(60000);
          await scratch.db('probe').update({ v: 0 });
          let runs = 0;
          let arrived = 0;
          let release: () => void = () => undefined;
          const bothHoldTheirFirstRow = new Promise<void>((resolve) => (release = resolve));
          const crossing = (first: number, second: number) =>
            withTransaction(scratch.db, async (trx) => {
              runs += 1;
              await trx('probe').where({ id: first }).increment('v', 1);
              // Only the first runs meet here; a rerun goes straight on (the other one has committed or is waiting).
              if (runs <= 2) {
                arrived += 1;
                if (arrived === 2) release();
                await bothHoldTheirFirstRow;
              }
              await trx('probe').where({ id: second }).increment('v', 1);
            });
          await Promise.all([crossing(1, 2), crossing(2, 1)]);
          expect(runs).to.equal(3);
          expect(await scratch.db('probe').orderBy('id').select('id', 'v')).to.deep.equal([
            { id: 1, v: 2 },
            { id: 2, v: 2 },
          ]);
        });
      }
    });
  }
});
