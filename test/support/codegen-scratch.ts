import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/shared/paths.js';

/**
 * A scratch copy of what `npm run codegen:check` reads (schema/, openapi/, generated/, the codegen configuration, and
 * src/: the variant profiles it takes the schema folders from, the bundle tool, and the MCP tools it writes to
 * generated/mcp-tools.json), sharing node_modules, so a test can edit the copy and run the check on it.
 */
export function codegenScratchCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-codegen-'));
  for (const entry of ['schema', 'openapi', 'generated', 'codegen.ts', 'package.json', 'tsconfig.json', '.ci/codegen-check', 'src']) {
    fs.cpSync(path.join(PROJECT_ROOT, entry), path.join(dir, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** `.ci/codegen-check` run in the copy. */
export function runCodegenCheck(dir: string): SpawnSyncReturns<string> {
  return spawnSync('bash', ['.ci/codegen-check'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
}
