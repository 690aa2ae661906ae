import { expect } from 'chai';
import { migrateToLatest } from '../src/db/migrate.js';
import { createSite } from '../src/sites/sites.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { freePort, runCli, startServerProcess } from './support/processes.js';

for (const kind of TEST_DATABASE_KINDS) {
  describe(`first run and shutdown [${kind}]`, function () {
    this.timeout(120000);
    let scratch: ScratchDatabase;
    before(async () => {
      scratch = await createScratchDatabase(kind, { migrate: false });
    });
    after(async () => scratch.drop());

    it('migrates an empty database, seeds the demo school, serves it and /healthz, and stops cleanly on SIGTERM', async () => {
      const port = await freePort();
      const server = await startServerProcess({ DATABASE_URL: scratch.url, PORT: String(port), LOG_LEVEL: 'info' });
      try {
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(health.status).to.equal(200);
        const home = await fetch(`http://localhost:${port}/`);
        expect(home.status).to.equal(200);
        const site = await scratch.db('sites').where({ origin: `http://localhost:${port}` }).first();
        expect(site, 'demo site at the default origin').to.not.equal(undefined);
        expect(await home.text()).to.contain(site.name);
        const members = await scratch.db('site_roles').where({ site_id: site.id, role: 'student' }).count({ n: '*' });
        expect(Number(members[0]?.n)).to.be.greaterThan(3);
      } finally {
        server.child.kill('SIGTERM');
      }
      expect(await server.exited).to.equal(0);
      const lines = server.stdout().trim().split('\n').map((line) => JSON.parse(line) as { msg: string });
      expect(lines.map((line) => line.msg)).to.include.members(['listening', 'shutting down', 'stopped']);
    });

    it('does not seed again when the database already has a site', async () => {
      await migrateToLatest(scratch.db);
      if (!(await scratch.db('sites').first())) await createSite(scratch.db, { origin: 'https://existing.example', name: 'Existing School' });
      const before = await scratch.db('payments').count({ n: '*' });
      const port = await freePort();
      const server = await startServerProcess({ DATABASE_URL: scratch.url, PORT: String(port), PUBLIC_ORIGIN: 'https://other.example' });
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      expect(await scratch.db('sites').where({ origin: 'https://other.example' }).first()).to.equal(undefined);
      expect(await scratch.db('payments').count({ n: '*' })).to.deep.equal(before);
    });
  });

  describe(`concurrent migrations [${kind}]: one runs, the others wait`, function () {
    this.timeout(120000);
    let scratch: ScratchDatabase;
    before(async () => {
      scratch = await createScratchDatabase(kind, { migrate: false });
    });
    after(async () => scratch.drop());

    it('two instances migrating one empty database at once apply each migration exactly once', async () => {
      const results = await Promise.all([0, 1, 2].map(() => runCli(['--json', 'migrate'], { DATABASE_URL: scratch.url })));
      for (const result of results) expect(result.code, result.stderr).to.equal(0);
      const applied = results.flatMap((result) => (JSON.parse(result.stdout) as { applied: string[] }).applied);
      const rows: Array<{ name: string }> = await scratch.db('knex_migrations').select('name');
      expect(rows.length).to.be.greaterThan(0);
      expect(applied).to.have.members(rows.map((row) => row.name));
      expect(new Set(rows.map((row) => row.name)).size).to.equal(rows.length);
    });
  });
}
