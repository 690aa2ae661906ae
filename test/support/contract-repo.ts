import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ContractChange } from '../../src/contract/diff/changes.js';
import type { DiffReport } from '../../src/contract/diff/report.js';
import { projectPath } from '../../src/shared/paths.js';

export interface ToolRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

const TSX = projectPath('node_modules', '.bin', 'tsx');

/**
 * A scratch git repository holding a copy of the contracts (schema/, openapi/, the MCP tools in
 * generated/mcp-tools.json, an empty breaking-change allowlist),
 * committed as `base` on `main`, for the contract tools to run against as a pull request would.
 */
export class ContractRepo {
  readonly dir: string;

  constructor(prefix: string) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    for (const folder of ['schema', 'openapi']) fs.cpSync(projectPath(folder), path.join(this.dir, folder), { recursive: true });
    fs.mkdirSync(path.join(this.dir, 'generated'));
    fs.copyFileSync(projectPath('generated', 'mcp-tools.json'), path.join(this.dir, 'generated', 'mcp-tools.json'));
    fs.mkdirSync(path.join(this.dir, '.ci'));
    fs.writeFileSync(path.join(this.dir, '.ci', 'contract-allowlist.yaml'), 'allow: []\n');
    this.git('init', '-q', '-b', 'main');
    this.commit('base');
  }

  /**
   * Makes the copy runnable as the server and the CLI too: the sources, generated types and package manifest beside
   * the contracts, node_modules linked. The server reads its contracts from the project it runs in, so it serves this
   * copy's schema/ and openapi/. Not committed: the contract tools compare contracts only.
   */
  addSources(): void {
    for (const folder of ['src', 'generated']) fs.cpSync(projectPath(folder), path.join(this.dir, folder), { recursive: true });
    for (const file of ['package.json', 'tsconfig.json']) fs.copyFileSync(projectPath(file), path.join(this.dir, file));
    fs.symlinkSync(projectPath('node_modules'), path.join(this.dir, 'node_modules'), 'dir');
  }

  git(...args: string[]): void {
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: this.dir, stdio: 'ignore' });
  }

  commit(message: string): void {
    this.git('add', '-A');
    this.git('commit', '-q', '-m', message);
  }

  /** Replaces `from` in a contract file; throws when it is not there, so an edit never silently does nothing. */
  edit(file: string, from: string | RegExp, to: string): void {
    const absolute = path.join(this.dir, file);
    const text = fs.readFileSync(absolute, 'utf8');
    const changed = text.replace(from, to);
    if (changed === text) throw new Error(`${String(from)} is not in ${file}`);
    fs.writeFileSync(absolute, changed);
  }

  /** Runs one of the contract tools (a TypeScript entry point) as a process on this repository. */
  run(script: string, args: string[], env: NodeJS.ProcessEnv = {}): ToolRun {
    const result = spawnSync(TSX, [script, '--repo', this.dir, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The change with this id in a diff report; throws naming the ids there are. */
export function changeById(report: DiffReport, id: string): ContractChange {
  const match = report.changes.find((candidate) => candidate.id === id);
  if (!match) throw new Error(`no change ${id}; got ${report.changes.map((candidate) => candidate.id).join(', ')}`);
  return match;
}
