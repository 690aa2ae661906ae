import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { runNode22 } from './conformance-cli.js';

/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, `--cli`), a client independent of our SDK and of the
 * conformance suite, lists what /mcp offers. It needs Node >= 22.19, so it runs on the Node 22 dev dependency too.
 */
const require = createRequire(import.meta.url);
const INSPECTOR_CLI = path.join(path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'clients', 'launcher', 'build', 'index.js');

/** The Inspector's names for the two protocol eras: `legacy` is 2025-11-25 (initialize), `modern` is 2026-07-28. */
export const INSPECTOR_ERAS = { '2025-11-25': 'legacy', '2026-07-28': 'modern' } as const;

const LISTS = [
  { method: 'tools/list', key: 'tools' },
  { method: 'resources/list', key: 'resources' },
  { method: 'prompts/list', key: 'prompts' },
] as const;

export interface InspectorListing {
  method: string;
  ok: boolean;
  /** How many items came back, for the table. */
  count: number | null;
  problems: string[];
}

/**
 * `tools/list`, `resources/list` and `prompts/list` through the Inspector at one revision, with a bearer token or
 * without. `tools/list` runs with `--strict`, the Inspector's tool-schema portability lint, which exits 6 on an error
 * and only reports warnings: any output on stderr counts as a problem, so a warning fails too. (`--strict` applies to
 * tools/list alone; the Inspector refuses it with the other methods.) Each run gets its own HOME, since the Inspector
 * keeps a catalogue and OAuth storage under ~/.mcp-inspector.
 */
export async function inspectorListings(origin: string, revision: keyof typeof INSPECTOR_ERAS, token: string | undefined, timeoutMs: number): Promise<InspectorListing[]> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-inspector-'));
  try {
    const listings: InspectorListing[] = [];
    for (const { method, key } of LISTS) {
      const args = [INSPECTOR_CLI, '--cli', `${origin}/mcp`, '--transport', 'http', '--protocol-era', INSPECTOR_ERAS[revision], '--format', 'json', '--method', method];
      if (method === 'tools/list') args.push('--strict');
      if (token !== undefined) args.push('--header', `Authorization: Bearer ${token}`);
      const run = await runNode22(args, { timeoutMs, env: { HOME: home } });
      const problems: string[] = [];
      if (run.timedOut) problems.push(`no answer within ${timeoutMs / 1000} s`);
      else if (run.exitCode !== 0) problems.push(`exit code ${String(run.exitCode)}`);
      if (run.stderr.trim() !== '') problems.push(`stderr: ${run.stderr.trim()}`);
      const items = itemsOf(run.stdout, key);
      if (items === null) problems.push(`stdout is not a ${method} result: ${run.stdout.slice(0, 300)}`);
      else if (items === 0) problems.push(`${method} listed nothing`);
      listings.push({ method, ok: problems.length === 0, count: items, problems });
    }
    return listings;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** With `--format json` the CLI prints one object, `{ result: { tools: [...] } }`. */
function itemsOf(stdout: string, key: string): number | null {
  try {
    const parsed = JSON.parse(stdout) as { result?: Record<string, unknown> };
    const list = parsed.result?.[key];
    return Array.isArray(list) ? list.length : null;
  } catch {
    return null;
  }
}
