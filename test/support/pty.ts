import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/shared/paths.js';

/** Whether util-linux `script` (which runs a command in a pseudo-terminal) is installed. */
export function terminalAvailable(): boolean {
  const version = spawnSync('script', ['-V'], { encoding: 'utf8' });
  return version.status === 0 && /util-linux/.test(version.stdout);
}

/** A word for `sh -c`, quoted. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Runs a shell command line with a pseudo-terminal as its stdin, stdout and stderr (what redirections inside the line
 * leave there), and returns its exit status and everything the terminal was sent, \r and all.
 */
export async function runInTerminal(commandLine: string, env: Record<string, string | undefined>): Promise<{ code: number | null; screen: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-pty-'));
  const log = path.join(dir, 'terminal.log');
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('script', ['-qec', commandLine, log], { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', resolve);
    });
    return { code, screen: fs.readFileSync(log, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
