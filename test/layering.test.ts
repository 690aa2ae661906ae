import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../src/shared/paths.js';

/** The floors of src/ (docs/architecture.md), as .dependency-cruiser.mjs declares them for `npm run lint`. */
const CONFIG = path.join(PROJECT_ROOT, '.dependency-cruiser.mjs');
const DEPCRUISE = path.join(PROJECT_ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Floor {
  name: string;
  paths: string[];
}

interface UpwardException {
  from: string;
  to: string;
  reason: string;
}

interface Layering {
  floors: Floor[];
  upwardExceptions: UpwardException[];
}

async function layering(): Promise<Layering> {
  return (await import(pathToFileURL(CONFIG).href)) as Layering;
}

/** Runs the layering check the way `npm run lint` does, in `cwd`; answers its exit status and report. */
async function checkLayers(cwd: string, config = CONFIG): Promise<{ status: number; report: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [DEPCRUISE, 'src', '--config', config, '--output-type', 'err'], { cwd });
    return { status: 0, report: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof failed.code === 'number' ? failed.code : 1, report: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** A throwaway project with the given files under src/, laid out like this one (ESM, NodeNext resolution). */
function fixtureTree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-layering-'));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(PROJECT_ROOT, full).split(path.sep).join('/')] : [];
  });
}

describe('layering: what a module of src/ may import (npm run lint)', function () {
  this.timeout(180_000);
  const fixtures: string[] = [];
  const fixture = (files: Record<string, string>) => {
    const root = fixtureTree(files);
    fixtures.push(root);
    return root;
  };
  after(() => {
    for (const root of fixtures) fs.rmSync(root, { recursive: true, force: true });
  });
  /** The check fails on a throwaway tree of these files, and its report names each of `findings`. */
  const expectRefused = async (files: Record<string, string>, ...findings: string[]) => {
    const { status, report } = await checkLayers(fixture(files));
    expect(status, report).to.not.equal(0);
    for (const finding of findings) expect(report).to.contain(finding);
  };

  it('passes on the tree as it is: no import runs up a floor beyond the listed exceptions, and no cycle', async () => {
    const { status, report } = await checkLayers(PROJECT_ROOT);
    expect(report).to.not.match(/error/);
    expect(status, report).to.equal(0);
  });

  it('places every module of src/ on exactly one floor', async () => {
    const { floors } = await layering();
    for (const file of sourceFiles(path.join(PROJECT_ROOT, 'src'))) {
      const on = floors.filter((floor) => floor.paths.some((pattern) => new RegExp(pattern).test(file))).map((floor) => floor.name);
      expect(on, file).to.have.lengthOf(1);
    }
  });

  it('keeps the upward exceptions few, each with its reason', async () => {
    const { upwardExceptions } = await layering();
    expect(upwardExceptions.length).to.be.at.most(3);
    for (const exception of upwardExceptions) expect(exception.reason, `${exception.from} → ${exception.to}`).to.have.length.above(20);
  });

  it('fails on a deliberate violation: a foundation module importing an interface', async () => {
    await expectRefused(
      {
        'src/oauth/errors.ts': 'export class OAuthError extends Error {}\n',
        'src/shared/probe.ts': "import { OAuthError } from '../oauth/errors.js';\n\nexport const probe = new OAuthError('up a floor');\n",
      },
      'import-from-a-higher-floor: src/shared/probe.ts → src/oauth/errors.ts',
    );
  });

  it('counts a type-only import as much as a value import', async () => {
    await expectRefused(
      {
        'src/http/state.ts': 'export interface RequestState { requestId: string }\n',
        'src/db/probe.ts': "import type { RequestState } from '../http/state.js';\n\nexport const probe = (state: RequestState) => state.requestId;\n",
      },
      'import-from-a-higher-floor: src/db/probe.ts → src/http/state.ts',
    );
  });

  it('fails on an import cycle, even within one floor', async () => {
    await expectRefused(
      {
        'src/accounts/first.ts': "import { second } from './second.js';\n\nexport const first = () => second;\n",
        'src/accounts/second.ts': "import { first } from './first.js';\n\nexport const second = () => first;\n",
      },
      'no-circular',
    );
  });

  it('fails on a module in a folder no floor names', async () => {
    await expectRefused(
      {
        'src/shared/time.ts': 'export const now = () => new Date();\n',
        'src/elsewhere/probe.ts': "import { now } from '../shared/time.js';\n\nexport const probe = now();\n",
      },
      'module-on-no-floor: src/elsewhere/probe.ts',
    );
  });

  it('lets a module import its own floor and the floors below it', async () => {
    const root = fixture({
      'src/shared/errors.ts': 'export class AppError extends Error {}\n',
      'src/db/connection.ts': "import { AppError } from '../shared/errors.js';\n\nexport const connection = new AppError('down');\n",
      'src/accounts/users.ts': "import { connection } from '../db/connection.js';\n\nexport const users = connection;\n",
      'src/oauth/endpoints.ts': "import { users } from '../accounts/users.js';\n\nexport const endpoints = users;\n",
      'src/graphql/endpoint.ts': "import { endpoints } from '../oauth/endpoints.js';\n\nexport const endpoint = endpoints;\n",
      'src/cli/main.ts': "import { endpoint } from '../graphql/endpoint.js';\n\nexport const main = endpoint;\n",
    });
    const { status, report } = await checkLayers(root);
    expect(report).to.not.match(/error/);
    expect(status).to.equal(0);
  });

  it('allows a listed exception only from its module to its target', async () => {
    const exception = { from: 'src/shared/probe.ts', to: 'src/oauth/errors.ts', reason: 'a made-up exception for this test' };
    const root = fixture({
      'src/oauth/errors.ts': 'export class OAuthError extends Error {}\n',
      'src/oauth/endpoints.ts': "export const TOKEN_PATH = '/oauth/token';\n",
      'src/shared/probe.ts': "import { OAuthError } from '../oauth/errors.js';\nimport { TOKEN_PATH } from '../oauth/endpoints.js';\n\nexport const probe = new OAuthError(TOKEN_PATH);\n",
      'src/shared/neighbour.ts': "import { OAuthError } from '../oauth/errors.js';\n\nexport const neighbour = new OAuthError('not allowed');\n",
      'layering.mjs': `import { layeringConfig } from ${JSON.stringify(pathToFileURL(CONFIG).href)};\n\nexport default layeringConfig([${JSON.stringify(exception)}]);\n`,
    });
    const { status, report } = await checkLayers(root, path.join(root, 'layering.mjs'));
    expect(status).to.not.equal(0);
    expect(report).to.contain('import-from-a-higher-floor: src/shared/neighbour.ts → src/oauth/errors.ts');
    expect(report).to.contain('import-from-a-higher-floor: src/shared/probe.ts → src/oauth/endpoints.ts');
    expect(report).to.not.contain('src/shared/probe.ts → src/oauth/errors.ts');
  });
});
