import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

/** The repository root, whether the code runs from src/ (tsx) or dist/src/ (node): schema/, openapi/ and docs/ live there. */
export const PROJECT_ROOT = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));

export function projectPath(...segments: string[]): string {
  return path.join(PROJECT_ROOT, ...segments);
}
