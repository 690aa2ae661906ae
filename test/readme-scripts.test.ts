import { expect } from 'chai';
import fs from 'node:fs';
import { projectPath } from '../src/shared/paths.js';

/** The README's "npm scripts" table describes every script of package.json. */

/** `npm start`, `npm run build`, `prepare` → the script's name. */
function scriptNamed(cell: string): string | undefined {
  const code = /^`([^`]+)`$/.exec(cell.trim())?.[1];
  if (code === undefined) return undefined;
  return /^npm (?:run )?(\S+)$/.exec(code)?.[1] ?? code;
}

function describedScripts(readme: string): Map<string, string> {
  const section = readme.split(/^## npm scripts$/m)[1]?.split(/^## /m)[0] ?? '';
  const described = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').slice(1, -1);
    const name = cells[0] === undefined ? undefined : scriptNamed(cells[0]);
    if (name !== undefined) described.set(name, (cells[1] ?? '').trim());
  }
  return described;
}

describe('README: every npm script is described', () => {
  const scripts = Object.keys((JSON.parse(fs.readFileSync(projectPath('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
  const described = describedScripts(fs.readFileSync(projectPath('README.md'), 'utf8'));

  it('has a row with a description for each script in package.json', () => {
    const missing = scripts.filter((name) => !(described.get(name)?.length ?? 0));
    expect(missing, 'scripts with no row in the README\'s "npm scripts" table').to.deep.equal([]);
  });
});
