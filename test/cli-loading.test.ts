import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DEFAULT_REENCRYPTION_BATCH_SIZE as CLI_DEFAULT } from '../src/cli/commands/keys.js';
import { DEFAULT_REENCRYPTION_BATCH_SIZE } from '../src/keys/reencryption.js';
import { PROJECT_ROOT } from '../src/shared/paths.js';
import { describeEachDatabase } from './support/databases.js';

/** What no command that only reads or writes the database should load: the server, its APIs and their libraries. */
const HEAVY_PACKAGES = ['koa', '@koa/router', 'graphql', 'graphql-http', 'graphql-jit', '@graphql-tools/schema', '@modelcontextprotocol/sdk', 'jose', 'ajv', 'openapi-backend', '@readme/openapi-parser', 'yaml', 'pino', 'prom-client', 'zod'];
const HEAVY_SOURCES = ['src/app.ts', 'src/server.ts', 'src/http/', 'src/graphql/', 'src/mcp/', 'src/oauth/', 'src/admin/', 'src/member/', 'src/import/', 'src/contract/'];

interface Loaded {
  packages: Set<string>;
  sources: string[];
}

/** Runs the CLI (through tsx, as the other CLI tests do) and lists the packages and our sources it loaded. */
async function loadedBy(args: string[], env: Record<string, string> = {}): Promise<Loaded> {
  const trace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-trace-')), 'modules.txt');
  try {
    await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/support/trace-modules.ts', 'src/cli/main.ts', ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent', SCHOOLGATE_TRACE_MODULES: trace, ...env },
    });
    const urls = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    const packages = new Set(urls.flatMap((url) => /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
    const root = new URL(`file://${PROJECT_ROOT}/`).href;
    const sources = urls.filter((url) => url.startsWith(`${root}src/`)).map((url) => url.slice(root.length));
    return { packages, sources };
  } finally {
    fs.rmSync(path.dirname(trace), { recursive: true, force: true });
  }
}

function expectNothingHeavy(loaded: Loaded): void {
  expect(HEAVY_PACKAGES.filter((name) => loaded.packages.has(name))).to.deep.equal([]);
  expect(loaded.sources.filter((source) => HEAVY_SOURCES.some((heavy) => source.startsWith(heavy)))).to.deep.equal([]);
}

describe('what the CLI loads', function () {
  this.timeout(60000);

  it('--help loads the command definitions only: not even the database layer', async () => {
    const loaded = await loadedBy(['--help']);
    expect(loaded.sources).to.include('src/cli/commands/sites.ts');
    expectNothingHeavy(loaded);
    expect(loaded.packages.has('knex')).to.equal(false);
    expect(loaded.sources).not.to.include('src/db/connection.ts');
  });

  it("shows the re-encryption batch size the re-encryption uses, without loading it", () => {
    expect(CLI_DEFAULT).to.equal(DEFAULT_REENCRYPTION_BATCH_SIZE);
  });
});

describeEachDatabase('what `schoolgate site list` loads', (scratch) => {
  it('the configuration, the database layer and the sites module, and nothing of the server', async () => {
    const loaded = await loadedBy(['site', 'list'], { DATABASE_URL: scratch().url });
    expect(loaded.packages.has('knex')).to.equal(true);
    expect(loaded.sources).to.include.members(['src/config/config.ts', 'src/db/connection.ts', 'src/sites/sites.ts']);
    expectNothingHeavy(loaded);
  });
});
