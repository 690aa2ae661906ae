import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Variant } from '../src/config/config.js';
import { projectPath } from '../src/shared/paths.js';
import { variantProfile } from '../src/variant.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The codegen.ts that docs/member-graphql.md shows a frontend team, run as written (the block after the
 * `codegen-config` marker) with graphql-codegen's client preset against the SDL a live server serves, without a
 * token: it generates, the fields of every custom scalar have their documented type (never `unknown` or `any`), the
 * operation types equal the ones this repository commits in generated/client/, and an unmapped scalar fails the run.
 */

const DOC = projectPath('docs', 'member-graphql.md');
const DOCUMENTED_SCHEMA_URL = 'https://school.example/member/graphql/schema.graphql';
const CODEGEN = projectPath('node_modules', '.bin', 'graphql-codegen');

/** The documented config: the first ```ts block after the marker comment. */
function documentedCodegenConfig(): string {
  const text = fs.readFileSync(DOC, 'utf8');
  const marker = text.indexOf('<!-- codegen-config');
  expect(marker, 'the codegen-config marker in docs/member-graphql.md').to.be.greaterThan(-1);
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(marker));
  if (!block?.[1]) throw new Error('no ```ts block after the codegen-config marker');
  return block[1];
}

function run(command: string, args: string[], cwd: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NODE_OPTIONS: '' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** The custom scalars the schema declares (schema/**.graphql). */
function customScalars(variant: Variant): string[] {
  const names = new Set<string>();
  for (const folder of variantProfile(variant).memberGraphql.schemaFolders) {
    for (const file of fs.readdirSync(projectPath(folder)).filter((name) => name.endsWith('.graphql'))) {
      for (const match of fs.readFileSync(projectPath(folder, file), 'utf8').matchAll(/^scalar (\w+)/gm)) names.add(match[1] ?? '');
    }
  }
  return [...names].sort();
}

for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`the documented codegen config against the served SDL, variant ${variant}`, (scratch) => codegenSuite(variant, scratch));
}

function codegenSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  let server: TestServer;
  let project: string;

  before(async function () {
    this.timeout(60_000);
    server = await startTestServer(scratch(), { variant });
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-codegen-'));
  });
  after(async () => {
    await server?.stop();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  it('generates with no token, every custom scalar typed as documented, the same types as generated/client/', async function () {
    this.timeout(180_000);
    const profile = variantProfile(variant);
    const config = documentedCodegenConfig();
    expect(config).to.contain(DOCUMENTED_SCHEMA_URL);
    const served = `${server.siteA.origin}${profile.memberGraphql.path}/schema.graphql`;
    fs.writeFileSync(path.join(project, 'codegen.ts'), config.replace(DOCUMENTED_SCHEMA_URL, served));
    // The frontend's documents: this variant's example operations.
    fs.mkdirSync(path.join(project, 'src'));
    for (const folder of profile.memberGraphql.operationFolders) {
      for (const file of fs.readdirSync(projectPath(folder)).filter((name) => name.endsWith('.graphql'))) {
        fs.copyFileSync(projectPath(folder, file), path.join(project, 'src', `${path.basename(folder)}-${file}`));
      }
    }
    fs.writeFileSync(path.join(project, 'src', 'probe.graphql'), 'query ScalarProbe {\n  viewer {\n    eventRegistrations(first: 1) {\n      nodes {\n        registeredAt\n      }\n    }\n  }\n}\n');
    // graphql-codegen finds its preset from the project, as it would in the frontend's own node_modules.
    fs.symlinkSync(projectPath('node_modules'), path.join(project, 'node_modules'), 'dir');

    const result = await run(CODEGEN, ['--config', 'codegen.ts'], project);
    expect(result.status, result.output).to.equal(0);

    const generated = fs.readFileSync(path.join(project, 'src', 'gql', 'graphql.ts'), 'utf8');
    // The probe's DateTime field, and (variant A) the payments' Money fields, come out as their documented types.
    expect(generated).to.contain('export type ScalarProbeQuery = { viewer: { eventRegistrations: { nodes: Array<{ registeredAt: string }> } } };');
    if (variant === 'A') expect(generated).to.match(/export type PaymentHistoryQuery = .*amount: number, currency: string, .*paidAt: string \| null, .*refundedAmount: number/);
    // Every operation type the repository commits comes out the same from the served SDL.
    const committed = fs.readFileSync(projectPath('generated', 'client', `member-${variant.toLowerCase()}`, 'graphql.ts'), 'utf8');
    const operationTypes = committed.split('\n').filter((line) => /^export type \w+(Query|Mutation)(Variables)? = /.test(line));
    expect(operationTypes.length).to.be.greaterThan(1);
    for (const line of operationTypes) expect(generated, line).to.contain(line);
    // No field typed unknown or any (the preset's own `Exact<T extends { [key: string]: unknown }>` aside).
    expect(generated).not.to.match(/(?<!\[key: string\]): unknown\b|: any\b/);
  });

  it('fails, rather than typing it unknown, when a custom scalar has no mapping (strictScalars)', async function () {
    this.timeout(180_000);
    const custom = customScalars(variant);
    expect(custom).to.deep.equal(['DateTime', 'Money']);
    const config = fs.readFileSync(path.join(project, 'codegen.ts'), 'utf8');
    const unmapped = config.replace(/^\s*Money: 'number',\n/m, '');
    expect(unmapped).to.not.equal(config);
    fs.writeFileSync(path.join(project, 'codegen-unmapped.ts'), unmapped);
    const result = await run(CODEGEN, ['--config', 'codegen-unmapped.ts'], project);
    expect(result.status).to.not.equal(0);
    expect(result.output).to.contain('Money');
  });
}
