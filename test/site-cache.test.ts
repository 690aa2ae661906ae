import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSiteCache } from '../src/sites/site-cache.js';
import { createSite, updateSite } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { runCli } from './support/processes.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The site of a request comes from a per-process cache (one read per lifetime on the hot paths): a change made in this process is seen at
 * once, one made by another process within the cache's lifetime (SCHOOLGATE_SITE_CACHE_SECONDS, 5 s by default).
 */
describeEachDatabase('site cache', (scratch) => {
  it('reads a site once per lifetime, drops every entry on a local write, and never caches an unknown origin', async () => {
    const db = scratch().db;
    const site = await createSite(db, { origin: 'https://cache.example', name: 'Cache School', subdomain: 'cache' });
    let reads = 0;
    const listener = () => (reads += 1);
    db.on('query', listener);
    try {
      let now = 1_000_000;
      const cache = createSiteCache(5000, () => now);
      expect((await cache.find(db, site.origin))?.name).to.equal('Cache School');
      expect((await cache.find(db, site.origin))?.name).to.equal('Cache School');
      expect(reads).to.equal(1);
      now += 5000;
      await cache.find(db, site.origin);
      expect(reads).to.equal(2);
      reads = 0;
      await updateSite(db, site.id, { name: 'Renamed Cache School' });
      const afterWrite = reads;
      expect((await cache.find(db, site.origin))?.name).to.equal('Renamed Cache School');
      expect(reads - afterWrite).to.equal(1);
      reads = 0;
      expect(await cache.find(db, 'https://unknown.example')).to.equal(null);
      expect(await cache.find(db, 'https://unknown.example')).to.equal(null);
      expect(reads).to.equal(2);
    } finally {
      db.off('query', listener);
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

    it('sees a change made by another process (the CLI) within the cache lifetime of 5 seconds', async function () {
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
      // 5 s of cache lifetime, plus the time one poll takes on a loaded machine.
      expect(seenAfter).to.be.below(7_000);
    });
  });
});
