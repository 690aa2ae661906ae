import fs from 'node:fs';
import { projectPath } from '../shared/paths.js';

/** package.json's version, for the `service.version` resource attribute. */
export function projectVersion(): string {
  const { version } = JSON.parse(fs.readFileSync(projectPath('package.json'), 'utf8')) as { version?: unknown };
  return typeof version === 'string' ? version : 'unknown';
}
