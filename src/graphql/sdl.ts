import fs from 'node:fs';
import path from 'node:path';
import { projectPath } from '../shared/paths.js';
import type { VariantProfile } from '../variant.js';

function sdlFiles(folder: string): string[] {
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => fs.readFileSync(path.join(folder, name), 'utf8'));
}

/** The hand-written SDL of a deployment: the files of its schema folders, in the profile's order (spec: variants). */
export function typeDefsFor(variant: VariantProfile): string[] {
  return variant.memberGraphql.schemaFolders.flatMap((folder) => sdlFiles(projectPath(folder)));
}
