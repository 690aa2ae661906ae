#!/usr/bin/env node
// Builds the consumer package packages/client (npm run build:client) into packages/client/dist:
// 1. copies the generated types (generated/admin-api.ts, generated/client/member-a|b/) into packages/client/src/generated/;
// 2. compiles the library (the typed admin client and the member types, with declarations) with tsc;
// 3. bundles the schoolgate-contract-test command from src/ with esbuild (the one tsx runs on), every npm package left
//    external (they are the package's dependencies), so the package carries the checks' code and nothing of the server.
// Then `npm pack` in packages/client makes the tarball (test/consumer-package.test.ts does both).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = path.join(root, 'packages', 'client');
const dist = path.join(pkg, 'dist');
const staged = path.join(pkg, 'src', 'generated');

fs.rmSync(dist, { recursive: true, force: true });
fs.rmSync(staged, { recursive: true, force: true });
fs.mkdirSync(staged, { recursive: true });
fs.copyFileSync(path.join(root, 'generated', 'admin-api.ts'), path.join(staged, 'admin-api.ts'));
for (const variant of ['member-a', 'member-b']) {
  fs.cpSync(path.join(root, 'generated', 'client', variant), path.join(staged, variant), { recursive: true });
}

const tsc = spawnSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', path.join(pkg, 'tsconfig.json')], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const { version } = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
await build({
  entryPoints: [path.join(pkg, 'src', 'contract-test.ts')],
  outfile: path.join(dist, 'contract-test.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  banner: { js: `#!/usr/bin/env node\n// @schoolgate/client ${version}: schoolgate-contract-test, bundled from the schoolgate repository's src/.` },
  logLevel: 'warning',
});
fs.chmodSync(path.join(dist, 'contract-test.js'), 0o755);
process.stdout.write(`built ${path.relative(root, dist)}\n`);
