import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The contract sources (`schema/**.graphql`, `openapi/admin.yaml`, `generated/mcp-tools.json`) of one side of a diff: a git revision, or the
 * working tree (uncommitted edits included, which is what a reviewer has in front of them).
 */
export interface ContractSources {
  label: string;
  /** Files under schema/ (relative paths, e.g. `schema/variant-a/payments.graphql`) and their text. */
  graphqlFiles: Map<string, string>;
  /** openapi/admin.yaml, or null when that side has none. */
  openapi: string | null;
  /** generated/mcp-tools.json (the MCP tools, written by `npm run codegen`), or null when that side has none (older revisions). */
  mcpTools: string | null;
}

export const OPENAPI_FILE = 'openapi/admin.yaml';
export const MCP_TOOLS_FILE = 'generated/mcp-tools.json';

export class UsageError extends Error {}

function git(repo: string, args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The merge base of HEAD with main (the default base of a review), or HEAD itself on main. */
export function defaultBaseRef(repo: string): string {
  for (const branch of ['main', 'origin/main']) {
    try {
      return git(repo, ['merge-base', 'HEAD', branch]).trim();
    } catch {
      // try the next name
    }
  }
  throw new UsageError('no branch main to take the merge base with; name the base revision: npm run contract:diff -- <BASE_REF>');
}

export function readRevision(repo: string, ref: string): ContractSources {
  let commit: string;
  try {
    commit = git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim();
  } catch {
    throw new UsageError(`${ref} is not a revision of this repository`);
  }
  const listed = git(repo, ['ls-tree', '-r', '--name-only', commit, '--', 'schema', 'openapi', MCP_TOOLS_FILE])
    .split('\n')
    .filter((name) => name !== '');
  const graphqlFiles = new Map<string, string>();
  for (const name of listed.filter((file) => file.startsWith('schema/') && file.endsWith('.graphql') && !file.startsWith('schema/operations/'))) {
    graphqlFiles.set(name, git(repo, ['show', `${commit}:${name}`]));
  }
  const openapi = listed.includes(OPENAPI_FILE) ? git(repo, ['show', `${commit}:${OPENAPI_FILE}`]) : null;
  const mcpTools = listed.includes(MCP_TOOLS_FILE) ? git(repo, ['show', `${commit}:${MCP_TOOLS_FILE}`]) : null;
  return { label: `${ref} (${commit.slice(0, 12)})`, graphqlFiles, openapi, mcpTools };
}

function walk(root: string, folder: string): string[] {
  const absolute = path.join(root, folder);
  if (!fs.existsSync(absolute)) return [];
  return fs.readdirSync(absolute, { withFileTypes: true }).flatMap((entry) => {
    const relative = `${folder}/${entry.name}`;
    return entry.isDirectory() ? walk(root, relative) : [relative];
  });
}

export function readWorkingTree(repo: string): ContractSources {
  const graphqlFiles = new Map<string, string>();
  for (const name of walk(repo, 'schema')
    .filter((file) => file.endsWith('.graphql') && !file.startsWith('schema/operations/'))
    .sort()) {
    graphqlFiles.set(name, fs.readFileSync(path.join(repo, name), 'utf8'));
  }
  const read = (file: string) => (fs.existsSync(path.join(repo, file)) ? fs.readFileSync(path.join(repo, file), 'utf8') : null);
  return { label: 'working tree', graphqlFiles, openapi: read(OPENAPI_FILE), mcpTools: read(MCP_TOOLS_FILE) };
}
