import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectPath } from '../src/shared/paths.js';
import { issueToken } from './support/admin.js';
import { describeEachDatabase } from './support/databases.js';
import { memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The consumer package packages/client (@schoolgate/client): built from the repository (npm run build:client), packed
 * with npm pack, installed into a scratch consumer project (the tarball unpacked into node_modules and its
 * dependencies linked from this repository's node_modules: no registry, no npm install here), where a consumer's file
 * using the typed admin client and the member types type-checks, and `schoolgate-contract-test --help` runs; then the
 * packaged command checks a live server with both tokens, every check passing.
 */

const PACKAGE = projectPath('packages', 'client');

function run(command: string, args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NODE_OPTIONS: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const CONSUMER_FILE = `import { createAdminClient, type components } from '@schoolgate/client';
import { PaymentHistoryDocument, type PaymentHistoryQuery } from '@schoolgate/client/member-a';
import { MemberSyllabusDocument, type MemberSyllabusQuery } from '@schoolgate/client/member-b';

export async function schoolName(origin: string, token: string): Promise<string> {
  const admin = createAdminClient(origin, { token: () => token });
  const { data, error } = await admin.GET('/school');
  if (error || !data) throw new Error('no school');
  const school: components['schemas']['School'] = data;
  return school.name;
}

export function firstPayment(result: PaymentHistoryQuery): { amount: number; paidAt: string | null } | undefined {
  const payment = result.viewer.payments.nodes[0];
  return payment && { amount: payment.amount, paidAt: payment.paidAt };
}

export function courseCount(result: MemberSyllabusQuery): number {
  return result.viewer.enrolledCourses.nodes.length;
}

export const documents: string[] = [PaymentHistoryDocument.toString(), MemberSyllabusDocument.toString()];

// Each line below must be a type error: were a scalar unknown or any, or a path unchecked, it would not be.
export function mistakes(result: PaymentHistoryQuery, origin: string): void {
  // @ts-expect-error Money is a number
  const amount: string = result.viewer.payments.nodes[0]!.amount;
  // @ts-expect-error DateTime is a string
  const paidAt: number | null = result.viewer.payments.nodes[0]!.paidAt;
  // @ts-expect-error no such admin path
  void createAdminClient(origin, { token: 't' }).GET('/no-such-path');
  void amount;
  void paidAt;
}
`;

describe('the consumer package @schoolgate/client: built, packed, installed and used', function () {
  this.timeout(300_000);
  let scratch: string;
  let tarball: string;
  let consumer: string;

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-client-'));
    const build = await run(process.execPath, [projectPath('bin', 'build-client.js')], projectPath());
    expect(build.status, build.stdout + build.stderr).to.equal(0);
    const pack = await run('npm', ['pack', '--json', '--pack-destination', scratch], PACKAGE);
    expect(pack.status, pack.stderr).to.equal(0);
    const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    if (!packed) throw new Error('npm pack reported nothing');
    tarball = path.join(scratch, packed.filename);

    // Install: the tarball unpacked where npm would put it, each dependency linked from this repository.
    consumer = path.join(scratch, 'consumer');
    const installed = path.join(consumer, 'node_modules', '@schoolgate', 'client');
    fs.mkdirSync(installed, { recursive: true });
    const untar = await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], scratch);
    expect(untar.status, untar.stderr).to.equal(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies)) {
      const link = path.join(consumer, 'node_modules', dependency);
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.symlinkSync(projectPath('node_modules', dependency), link, 'dir');
    }
    fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  });

  after(() => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('packs only the built files, a small tarball with few dependencies and none of the server', async () => {
    const list = await run('tar', ['-tzf', tarball], scratch);
    const files = list.stdout.trim().split('\n').map((file) => file.replace(/^package\//, ''));
    expect(files).to.include.members(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/member-a.d.ts', 'dist/member-b.d.ts', 'dist/contract-test.js']);
    for (const file of files) expect(file, file).to.match(/^(package\.json|README\.md|dist\/)/);
    expect(fs.statSync(tarball).size).to.be.lessThan(400_000);
    const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; bin: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).to.have.length.at.most(12);
    for (const server of ['koa', 'knex', 'mysql2', 'better-sqlite3', '@opentelemetry/sdk-node']) expect(manifest.dependencies).not.to.have.property(server);
    expect(manifest.bin).to.deep.equal({ 'schoolgate-contract-test': 'dist/contract-test.js' });
    // The bundled command imports no server module: nothing of the database, the HTTP server or the configuration.
    const bundle = fs.readFileSync(path.join(PACKAGE, 'dist', 'contract-test.js'), 'utf8');
    expect(bundle.startsWith('#!/usr/bin/env node\n')).to.equal(true);
    for (const server of ['"knex"', '"koa"', '"mysql2"', '"better-sqlite3"', 'loadConfig']) expect(bundle, server).not.to.contain(server);
  });

  it("type-checks a consumer's file using the admin client and the member types, with the marked mistakes refused", async () => {
    fs.mkdirSync(path.join(consumer, 'src'), { recursive: true });
    fs.writeFileSync(path.join(consumer, 'src', 'consumer.ts'), CONSUMER_FILE);
    fs.writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], types: [], strict: true, noEmit: true, skipLibCheck: true },
        include: ['src'],
      }),
    );
    const tsc = await run(projectPath('node_modules', '.bin', 'tsc'), ['-p', consumer], consumer);
    expect(tsc.stdout + tsc.stderr).to.equal('');
    expect(tsc.status).to.equal(0);
  });

  it('imports at run time: the admin client sends the token to {origin}/api/admin/v1', async () => {
    const script = `import { createAdminClient } from '@schoolgate/client';
import { PaymentHistoryDocument } from '@schoolgate/client/member-a';
const seen = [];
const client = createAdminClient('https://school.example/', { token: 'abc', fetch: async (request) => { seen.push([request.url, request.headers.get('authorization')]); return new Response('{"name":"x"}', { headers: { 'content-type': 'application/json' } }); } });
const { data } = await client.GET('/school');
console.log(JSON.stringify({ seen, data, document: PaymentHistoryDocument.toString().includes('query PaymentHistory') }));
`;
    fs.writeFileSync(path.join(consumer, 'runtime.mjs'), script);
    const result = await run(process.execPath, ['runtime.mjs'], consumer);
    expect(result.status, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.equal({ seen: [['https://school.example/api/admin/v1/school', 'Bearer abc']], data: { name: 'x' }, document: true });
  });

  it('runs the schoolgate-contract-test bin: --help, and a usage error exits 2', async () => {
    const bin = path.join(consumer, 'node_modules', '@schoolgate', 'client', 'dist', 'contract-test.js');
    const help = await run(bin, ['--help'], consumer);
    expect(help.status, help.stderr).to.equal(0);
    expect(help.stdout).to.contain('Usage: schoolgate-contract-test').and.contain('--base-url').and.contain('--member-token');
    const missing = await run(bin, [], consumer);
    expect(missing.status).to.equal(2);
    const badUrl = await run(bin, ['--base-url', 'ftp://school.example'], consumer);
    expect(badUrl.status).to.equal(2);
    expect(badUrl.stderr).to.contain('--base-url must be an http or https URL');
  });
});

describeEachDatabase('the packaged schoolgate-contract-test against a live server', (scratch) => {
  let server: TestServer;
  let operator: string;
  let member: string;
  const bin = path.join(PACKAGE, 'dist', 'contract-test.js');

  before(async function () {
    this.timeout(300_000);
    if (!fs.existsSync(bin)) {
      const build = await run(process.execPath, [projectPath('bin', 'build-client.js')], projectPath());
      expect(build.status, build.stdout + build.stderr).to.equal(0);
    }
    server = await startTestServer(scratch());
    operator = (await issueToken(scratch().db, server.siteA)).token;
    member = await memberToken(scratch().db, server.siteA, await makeUser(scratch().db, server.siteA, ['student'], 'Package Member'));
  });
  after(() => server?.stop());

  it('passes every check, the same ones `schoolgate contract-test` runs', async function () {
    this.timeout(120_000);
    const result = await run(bin, ['--base-url', server.siteA.origin, '--token', operator, '--member-token', member, '--json'], PACKAGE);
    expect(result.status, result.stdout + result.stderr).to.equal(0);
    const report = JSON.parse(result.stdout) as { ok: boolean; checks: Array<{ name: string; result: string; detail: string }> };
    expect(report.ok).to.equal(true);
    expect(report.checks.length).to.be.greaterThan(10);
    expect(report.checks.filter((check) => check.result !== 'pass')).to.deep.equal([]);
  });
});
