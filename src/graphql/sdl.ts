import fs from 'node:fs';
import path from 'node:path';
import type { Variant } from '../config/config.js';
import { projectPath } from '../shared/paths.js';

function sdlFiles(folder: string): string[] {
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => fs.readFileSync(path.join(folder, name), 'utf8'));
}

/** The hand-written SDL of a variant: schema/ is variant B; variant A adds schema/variant-a/ (spec: variants). */
export function typeDefsFor(variant: Variant): string[] {
  const shared = sdlFiles(projectPath('schema'));
  return variant === 'A' ? [...shared, ...sdlFiles(projectPath('schema', 'variant-a'))] : shared;
}
