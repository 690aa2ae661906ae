import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { migrateToLatest } from '../src/db/migrate.js';
import { PROJECT_ROOT } from '../src/shared/paths.js';
import { createSite } from '../src/sites/sites.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { TEST_KEY_ENCRYPTION_ENV } from './support/key-encryption.js';
import { runCli } from './support/processes.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

interface ServerProcess {
  child: ChildProcess;
  stdout: () => string;
  exited: Promise<number | null>;
}

/** `npm start` minus the build: the real entry point in its own process. */
async function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, ...TEST_KEY_ENCRYPTION_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr}`)), 60000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('is listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}:\n${stderr}`)));
  });
  return { child, stdout: () => stdout, exited };
}

for (const kind of TEST_DATABASE_KINDS) {
  describe(`first run and shutdown [${kind}] (issue 2, items 5 and 7)`, function () {
    this.timeout(120000);
    let scratch: ScratchDatabase;
    before(async () => {
      scratch = await createScratchDatabase(kind, { migrate: false });
    });
    after(async () => scratch.drop());

    it('migrates an empty database, seeds the demo school, serves it and /healthz, and stops cleanly on SIGTERM', async () => {
      const port = await freePort();
      const server = await startProcess({ DATABASE_URL: scratch.url, PORT: String(port), LOG_LEVEL: 'info' });
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
      expect(lines.map((line) => line.msg)).to.include.members(['listening', 'shutting down: finishing in-flight requests', 'stopped']);
    });

    it('does not seed again when the database already has a site', async () => {
      await migrateToLatest(scratch.db);
      if (!(await scratch.db('sites').first())) await createSite(scratch.db, { origin: 'https://existing.example', name: 'Existing School' });
      const before = await scratch.db('payments').count({ n: '*' });
      const port = await freePort();
      const server = await startProcess({ DATABASE_URL: scratch.url, PORT: String(port), PUBLIC_ORIGIN: 'https://other.example' });
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      expect(await scratch.db('sites').where({ origin: 'https://other.example' }).first()).to.equal(undefined);
      expect(await scratch.db('payments').count({ n: '*' })).to.deep.equal(before);
    });
  });

  describe(`concurrent migrations [${kind}] (issue 2, bad input)`, function () {
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
