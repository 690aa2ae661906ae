import { expect } from 'chai';
import v8 from 'node:v8';
import vm from 'node:vm';
import { DatabaseHealth } from '../src/db/health.js';
import { databaseHealth } from '../src/db/pool-guard.js';
import { DatabaseUnavailableError } from '../src/shared/errors.js';
import { createScratchDatabase, TEST_DATABASE_KINDS } from './support/databases.js';

/**
 * The health state's queue of acquisitions (src/db/health.ts): a request waiting for a pooled connection stops
 * waiting when the store is found down, and an acquisition that settled leaves nothing behind, however many ran: the
 * server answers millions of statements between two outages, and each one goes through this queue.
 */

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<T>((resolvePromise, rejectPromise) => {
    resolve = resolvePromise;
    reject = rejectPromise;
  });
  return { promise, resolve, reject };
}

/** A health state whose probe answers as `probeAnswers` says at the time of asking. */
function healthState(probeAnswers: () => boolean): DatabaseHealth {
  return new DatabaseHealth({
    probe: () => (probeAnswers() ? Promise.resolve() : Promise.reject(new Error('connect ECONNREFUSED'))),
    abandon: () => undefined,
    probeIntervalMs: 60_000,
    probeTimeoutMs: 1_000,
    stallMs: 60_000,
  });
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the health state queues acquisitions without keeping them', () => {
  it('hands each acquisition its connection or its error, and forgets it once settled', async () => {
    const health = healthState(() => true);
    const connections = await Promise.all(Array.from({ length: 10_000 }, (_, index) => health.whileHealthy(Promise.resolve({ index }))));
    expect(connections.map((connection) => connection.index)).to.deep.equal(Array.from({ length: 10_000 }, (_, index) => index));
    const failure = new Error('pool destroyed');
    const outcome = await health.whileHealthy(Promise.reject(failure)).catch((error: unknown) => error);
    expect(outcome).to.equal(failure);
    expect(health.queuedAcquisitions).to.equal(0);
    health.stop();
  });

  it('counts the acquisitions still waiting, and fails them all when the store is found down', async () => {
    let answers = true;
    const health = healthState(() => answers);
    const pending = [deferred<object>(), deferred<object>(), deferred<object>()];
    const waiting = pending.map((acquisition) => health.whileHealthy(acquisition.promise).catch((error: unknown) => error));
    const served = deferred<object>();
    const servedWaiter = health.whileHealthy(served.promise);
    served.resolve({ id: 'served' });
    expect(await servedWaiter).to.deep.equal({ id: 'served' });
    expect(health.queuedAcquisitions).to.equal(3);

    answers = false;
    health.reportFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' }));
    await health.check();
    expect(health.state).to.equal('unhealthy');
    for (const outcome of await Promise.all(waiting)) expect(outcome).to.be.instanceOf(DatabaseUnavailableError);
    expect(health.queuedAcquisitions).to.equal(0);
    // A connection the pool hands over after the outage failed its waiter does not queue it again.
    pending[0]?.resolve({ id: 'late' });
    await nextTurn();
    expect(health.queuedAcquisitions).to.equal(0);
    health.stop();
  });

  it('keeps no settled acquisition alive', async () => {
    const health = healthState(() => true);
    // Made in a function of its own, so that nothing here refers to the waiter once it has settled.
    const settledWaiters = async (): Promise<WeakRef<object>[]> => {
      const refs: WeakRef<object>[] = [];
      for (let index = 0; index < 100; index += 1) {
        const waiter = health.whileHealthy(Promise.resolve({ index }));
        refs.push(new WeakRef(waiter));
        await waiter;
      }
      return refs;
    };
    const refs = await settledWaiters();
    // A WeakRef's target stays alive until the end of the job that last read it: collect on a later turn.
    for (let attempt = 0; attempt < 5 && refs.some((ref) => ref.deref() !== undefined); attempt += 1) {
      await nextTurn();
      collectGarbage();
    }
    expect(refs.filter((ref) => ref.deref() !== undefined)).to.have.length(0);
    health.stop();
  });

  for (const kind of TEST_DATABASE_KINDS) {
    it(`leaves no waiter behind after the statements of a pool [${kind}]`, async function () {
      this.timeout(60_000);
      const scratch = await createScratchDatabase(kind);
      try {
        const health = databaseHealth(scratch.db);
        expect(health, 'the pool is guarded').to.not.equal(null);
        await Promise.all(Array.from({ length: 500 }, () => scratch.db.raw('select 1')));
        expect(health?.queuedAcquisitions).to.equal(0);
      } finally {
        await scratch.drop();
      }
    });
  }
});
