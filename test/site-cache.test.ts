import { expect } from 'chai';
import knex from 'knex';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { requestOrigin } from '../src/http/site-resolution.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { LruCache } from '../src/shared/lru-cache.js';
import { createSiteCache } from '../src/sites/site-cache.js';
import { createSite, updateSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { runCli } from './support/processes.js';
import { startTestServer, testConfig, type TestServer } from './support/server.js';

const quiet = createLogger('silent');
const silent = () => quiet;

describe('parsed request origins', () => {
  it('are normalised once per Host as received, in an LRU that keeps the origins in use', () => {
    const known = new LruCache<string, string | null>(2);
    expect(requestOrigin('http', 'School.Example:80', known)).to.equal('http://school.example');
    expect(requestOrigin('https', 'other.example:443', known)).to.equal('https://other.example');
    expect(requestOrigin('http', 'School.Example:80', known)).to.equal('http://school.example');
    expect(requestOrigin('http', 'bad host', known)).to.equal(null);
    expect(requestOrigin('http', '', known)).to.equal(null);
    expect(known.size).to.equal(2);
    // The origin asked last before the bad host stayed; the one asked longest ago went.
    expect(known.peek('http://School.Example:80')).to.equal('http://school.example');
    expect(known.peek('https://other.example:443')).to.equal(undefined);
  });
});

/**
 * The site of a request comes from a per-process cache (one read per lifetime on the hot paths, never while a request
 * of a site in use waits): a change made in this process is seen at once, one made by another process within the
 * cache's lifetime (SCHOOLGATE_SITE_CACHE_SECONDS, 5 s by default) and one read; at most SCHOOLGATE_SITE_CACHE_SIZE sites are kept.
 */
describeEachDatabase('site cache', (scratch) => {
  let reads = 0;
  const countRead = ({ sql }: { sql: string }) => {
    if (/from [`"]sites[`"]/i.test(sql)) reads += 1;
  };
  beforeEach(() => {
    reads = 0;
    scratch().db.on('query', countRead);
  });
  afterEach(() => {
    scratch().db.off('query', countRead);
  });

  let made = 0;
  const makeSite = async (name = 'Cache School'): Promise<Site> => {
    made += 1;
    return createSite(scratch().db, { origin: `https://cache-${made}.example`, name, subdomain: `cache-${made}` });
  };

  it('reads a site once per lifetime, drops every entry on a local write, and never caches an unknown origin', async () => {
    const db = scratch().db;
    const site = await makeSite();
    let now = 1_000_000;
    const cache = createSiteCache(5000, { clock: () => now, batchWindowMs: 0 });
    reads = 0;
    expect((await cache.find(db, site.origin, silent))?.name).to.equal('Cache School');
    expect((await cache.find(db, site.origin, silent))?.name).to.equal('Cache School');
    expect(reads).to.equal(1);
    now += 5000;
    await cache.find(db, site.origin, silent);
    await cache.refreshed();
    expect(reads).to.equal(2);
    reads = 0;
    await updateSite(db, site.id, { name: 'Renamed Cache School' });
    const afterWrite = reads;
    expect(cache.fresh(db, site.origin, silent)).to.equal(undefined);
    expect((await cache.find(db, site.origin, silent))?.name).to.equal('Renamed Cache School');
    expect(reads - afterWrite).to.equal(1);
    reads = 0;
    expect(await cache.find(db, 'https://unknown.example', silent)).to.equal(null);
    expect(await cache.find(db, 'https://unknown.example', silent)).to.equal(null);
    expect(reads).to.equal(2);
  });

  it('serves a stale site at once while one background read refreshes it, for at most one more lifetime', async () => {
    const db = scratch().db;
    const site = await makeSite('Before');
    let now = 2_000_000;
    const cache = createSiteCache(5000, { clock: () => now, batchWindowMs: 0 });
    await cache.find(db, site.origin, silent);
    // As another instance would: the row changes, this process's write generation does not.
    await db('sites').where({ id: site.id }).update({ name: 'After' });
    now += 6000;
    reads = 0;
    const served = Array.from({ length: 20 }, () => cache.fresh(db, site.origin, silent)?.name);
    expect(served).to.deep.equal(Array(20).fill('Before'));
    await cache.refreshed();
    expect(reads).to.equal(1);
    expect(cache.fresh(db, site.origin, silent)?.name).to.equal('After');
    expect(reads).to.equal(1);
    // Past twice the lifetime nothing is served stale: the request reads, and concurrent requests share that read.
    now += 10_000;
    expect(cache.fresh(db, site.origin, silent)).to.equal(undefined);
    reads = 0;
    const found = await Promise.all(Array.from({ length: 20 }, () => cache.find(db, site.origin, silent)));
    expect(found.map((each) => each?.name)).to.deep.equal(Array(20).fill('After'));
    expect(reads).to.equal(1);
  });

  it('keeps the same site object when a refresh reads an unchanged row', async () => {
    const db = scratch().db;
    const site = await makeSite();
    let now = 3_000_000;
    const cache = createSiteCache(5000, { clock: () => now, batchWindowMs: 0 });
    const first = await cache.find(db, site.origin, silent);
    now += 5000;
    cache.fresh(db, site.origin, silent);
    await cache.refreshed();
    expect(cache.fresh(db, site.origin, silent)).to.equal(first);
  });

  it("does not keep a background read that a write of this process overtook: the next request reads the write", async () => {
    const db = scratch().db;
    const site = await makeSite('Old Name');
    let now = 4_000_000;
    const cache = createSiteCache(5000, { clock: () => now, batchWindowMs: 0 });
    await cache.find(db, site.origin, silent);
    now += 5000;
    expect(cache.fresh(db, site.origin, silent)?.name).to.equal('Old Name');
    await updateSite(db, site.id, { name: 'New Name' });
    expect(cache.fresh(db, site.origin, silent)).to.equal(undefined);
    expect((await cache.find(db, site.origin, silent))?.name).to.equal('New Name');
    await cache.refreshed();
    expect(cache.fresh(db, site.origin, silent)?.name).to.equal('New Name');
  });

  it('keeps at most its size, dropping the least recently asked, and unknown origins take no place', async () => {
    const db = scratch().db;
    const [a, b, c] = [await makeSite('A'), await makeSite('B'), await makeSite('C')];
    const cache = createSiteCache(60_000, { capacity: 2, batchWindowMs: 0 });
    expect(cache.capacity).to.equal(2);
    reads = 0;
    await cache.find(db, a.origin, silent);
    await cache.find(db, b.origin, silent);
    for (let unknown = 0; unknown < 10; unknown += 1) expect(await cache.find(db, `https://nowhere-${unknown}.example`, silent)).to.equal(null);
    expect(reads).to.equal(12);
    reads = 0;
    expect(cache.fresh(db, a.origin, silent)?.name).to.equal('A');
    expect(cache.fresh(db, b.origin, silent)?.name).to.equal('B');
    await cache.find(db, c.origin, silent);
    expect(reads).to.equal(1);
    // A was asked before B: it went first.
    expect(cache.fresh(db, a.origin, silent)).to.equal(undefined);
    expect(cache.fresh(db, b.origin, silent)?.name).to.equal('B');
    expect(cache.fresh(db, c.origin, silent)?.name).to.equal('C');
  });

  it('keeps serving the stale site when its refresh fails, logs it, leaves no rejection, and tries again later', async () => {
    const db = scratch().db;
    const site = await makeSite('Kept');
    let now = 5_000_000;
    const cache = createSiteCache(5000, { clock: () => now, batchWindowMs: 0 });
    await cache.find(db, site.origin, silent);
    const lines: string[] = [];
    const log = createLogger('warn', new Writable({ write: (chunk: Buffer, _encoding, callback) => (lines.push(chunk.toString()), callback()) }));
    const unreachable = knex({ client: 'mysql2', connection: { host: '127.0.0.1', port: 1, user: 'root', connectTimeout: 500 }, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 2000, log: { warn: () => undefined, error: () => undefined } });
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      now += 6000;
      expect(cache.fresh(unreachable, site.origin, () => log)?.name).to.equal('Kept');
      await cache.refreshed();
      expect(cache.fresh(unreachable, site.origin, () => log)?.name).to.equal('Kept');
      await cache.refreshed();
      expect(lines).to.have.length(1);
      expect(lines[0]).to.contain('could not refresh cached sites');
      // After a pause the next request starts another refresh, which (with the database back) succeeds.
      now += 1000;
      reads = 0;
      expect(cache.fresh(db, site.origin, silent)?.name).to.equal('Kept');
      await cache.refreshed();
      expect(reads).to.equal(1);
      // The stale time is bounded: past it a request reads, and answers the failure.
      now += 10_000;
      expect(cache.fresh(unreachable, site.origin, () => log)).to.equal(undefined);
      await sleep(50);
      expect(rejections).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      await unreachable.destroy();
    }
  });

  describe('in a server', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(scratch());
    });
    after(async () => server.stop());

    const homeTitle = async () => /<h1>([^<]*)<\/h1>/.exec(await (await fetch(`${server.siteA.origin}/`)).text())?.[1];

    it('sees a change made through the admin code in this process on the next request', async () => {
      expect(await homeTitle()).to.equal(server.siteA.name);
      await updateSite(scratch().db, server.siteA.id, { name: 'Alpha Renamed Here' });
      expect(await homeTitle()).to.equal('Alpha Renamed Here');
    });

    it('sees a change made by another process (the CLI) within the cache lifetime of 5 seconds and one read', async function () {
      this.timeout(120000);
      expect(await homeTitle()).to.equal('Alpha Renamed Here');
      const changed = await runCli(['site', 'set', '--site', server.siteA.origin, '--name', 'Alpha Renamed Elsewhere'], { DATABASE_URL: scratch().url });
      expect(changed.code, changed.stderr).to.equal(0);
      const committedAt = Date.now();
      let seenAfter = Number.POSITIVE_INFINITY;
      while (Date.now() - committedAt < 10_000) {
        if ((await homeTitle()) === 'Alpha Renamed Elsewhere') {
          seenAfter = Date.now() - committedAt;
          break;
        }
        await sleep(100);
      }
      // 5 s of cache lifetime, plus the time one background read and one poll take on a loaded machine.
      expect(seenAfter).to.be.below(7_000);
    });
  });

  describe('in a server that keeps one site (SCHOOLGATE_SITE_CACHE_SIZE=1)', () => {
    let running: RunningServer;
    before(async () => {
      running = await startServer(testConfig({ variant: 'A', database: scratch().config, siteCacheSeconds: 60, siteCacheSize: 1 }), { db: scratch().db, logger: quiet });
      const port = new URL(running.listeningOn).port;
      await createSite(scratch().db, { origin: `http://localhost:${port}`, name: 'Kept Alpha', subdomain: `kept-alpha-${port}` });
      await createSite(scratch().db, { origin: `http://127.0.0.1:${port}`, name: 'Kept Beta', subdomain: `kept-beta-${port}` });
    });
    after(async () => running.stop());

    const discover = async (host: string) => (await fetch(`http://${host}:${new URL(running.listeningOn).port}/.well-known/openid-configuration`)).status;

    it('reads a site again once another one took its place, and not while it is the one kept', async () => {
      expect(await discover('localhost')).to.equal(200);
      reads = 0;
      expect(await discover('localhost')).to.equal(200);
      expect(reads, 'the site kept is served from the cache').to.equal(0);
      expect(await discover('127.0.0.1')).to.equal(200);
      expect(await discover('localhost')).to.equal(200);
      expect(reads, 'each site pushed the other out').to.equal(2);
    });
  });

  describe('in a server with a one-second lifetime', () => {
    let running: RunningServer;
    let site: Site;
    before(async () => {
      running = await startServer(testConfig({ variant: 'A', database: scratch().config, siteCacheSeconds: 1 }), { db: scratch().db, logger: quiet });
      site = await createSite(scratch().db, { origin: running.listeningOn, name: 'One Second School', subdomain: 'one-second' });
    });
    after(async () => running.stop());

    const discover = async () => (await fetch(`${running.listeningOn}/.well-known/openid-configuration`)).status;

    it('reads a site once for many concurrent requests once its entry is old', async function () {
      this.timeout(60_000);
      expect(await discover()).to.equal(200);
      await sleep(1100);
      reads = 0;
      const statuses = await Promise.all(Array.from({ length: 20 }, discover));
      expect(statuses).to.deep.equal(Array(20).fill(200));
      // A stale entry is refreshed in the background: wait for that read, then for anything after it.
      for (let waited = 0; reads === 0 && waited < 10_000; waited += 50) await sleep(50);
      await sleep(200);
      expect(reads).to.equal(1);
      expect(site.origin).to.equal(running.listeningOn);
    });
  });
});
