import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { Variant } from '../src/config/config.js';
import { schemaChanges } from '../src/contract/diff/json-schema-changes.js';
import type { DiffReport } from '../src/contract/diff/report.js';
import { currentMcpTools, mcpToolsText, type McpToolsFile, type PublishedTool } from '../src/contract/mcp-tools/published-tools.js';
import { projectPath } from '../src/shared/paths.js';
import { codegenScratchCopy, runCodegenCheck } from './support/codegen-scratch.js';
import { changeById, ContractRepo } from './support/contract-repo.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { MCP_ERAS, withMcpClient } from './support/mcp-clients.js';
import { useMcpSchool } from './support/mcp-school.js';

/**
 * The MCP tools are part of the contract: `npm run codegen` writes them to generated/mcp-tools.json, and
 * `npm run contract:diff` and `npm run changelog` compare that file at two revisions (docs/contract-workflow.md). The
 * diff runs as a process on a scratch git repository holding a copy of the contracts; the artefact is checked against
 * what a running server's `tools/list` shows, so it cannot drift from what clients see.
 */

const DIFF = projectPath('src', 'contract', 'diff', 'main.ts');
const CHANGELOG = projectPath('src', 'contract', 'changelog', 'main.ts');
const TOOLS_FILE = path.join('generated', 'mcp-tools.json');

describe('contract:diff and the changelog of the MCP tools', function () {
  // Each test runs the diff as a process, some twice: generous on a busy machine.
  this.timeout(300_000);
  let scratch: ContractRepo;

  beforeEach(() => {
    scratch = new ContractRepo('schoolgate-contract-diff-mcp-');
  });
  afterEach(() => scratch.remove());

  /** Edits every variant's copy of one tool in the working tree's generated/mcp-tools.json. */
  function editTool(name: string, change: (tool: PublishedTool) => void): void {
    const file = path.join(scratch.dir, TOOLS_FILE);
    const tools = JSON.parse(fs.readFileSync(file, 'utf8')) as McpToolsFile;
    let found = 0;
    for (const list of Object.values(tools.variants)) {
      for (const tool of list.filter((candidate) => candidate.name === name)) {
        change(tool);
        found += 1;
      }
    }
    if (found === 0) throw new Error(`no tool ${name} in ${TOOLS_FILE}`);
    fs.writeFileSync(file, mcpToolsText(tools));
  }

  function removeTool(name: string): void {
    const file = path.join(scratch.dir, TOOLS_FILE);
    const tools = JSON.parse(fs.readFileSync(file, 'utf8')) as McpToolsFile;
    for (const variant of Object.keys(tools.variants) as Variant[]) tools.variants[variant] = tools.variants[variant]?.filter((tool) => tool.name !== name);
    fs.writeFileSync(file, mcpToolsText(tools));
  }

  function properties(schema: Record<string, unknown> | null): Record<string, Record<string, unknown>> {
    return (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  }

  function diff(...args: string[]): { status: number | null; report: DiffReport } {
    const result = scratch.run(DIFF, ['HEAD', ...args, '--json']);
    expect(result.stderr, result.stderr).to.equal('');
    return { status: result.status, report: JSON.parse(result.stdout) as DiffReport };
  }

  const mcpIds = (report: DiffReport) => report.changes.filter((change) => change.api === 'mcp').map((change) => change.id);

  it('reports no MCP change while the tools are unchanged', () => {
    const { status, report } = diff();
    expect(status).to.equal(0);
    expect(mcpIds(report)).to.deep.equal([]);
  });

  it('removing a tool is breaking, once for both variants, names the tool as the element used, and fails the run', () => {
    removeTool('search_courses');
    const { status, report } = diff();
    expect(status).to.equal(1);
    expect(mcpIds(report)).to.deep.equal(['mcp:TOOL_REMOVED:search_courses']);
    const removed = changeById(report, 'mcp:TOOL_REMOVED:search_courses');
    expect(removed).to.include({ api: 'mcp', severity: 'breaking', where: 'search_courses' });
    expect(removed.variants).to.deep.equal(['A', 'B']);
    expect(removed.elements).to.deep.equal([{ api: 'mcp', name: 'search_courses' }]);
  });

  it('a tool that only variant A has is reported for variant A only', () => {
    removeTool('list_my_payments');
    const { report } = diff();
    expect(changeById(report, 'mcp:TOOL_REMOVED:list_my_payments').variants).to.deep.equal(['A']);
  });

  it('removing a required output field, or making it optional, is breaking: one row each, ids without array positions', () => {
    editTool('list_my_courses', (tool) => {
      const course = properties(tool.outputSchema).courses?.items as Record<string, unknown>;
      delete properties(course).slug;
      course.required = (course.required as string[]).filter((name) => name !== 'slug' && name !== 'title');
    });
    const { status, report } = diff();
    expect(status).to.equal(1);
    expect(mcpIds(report).sort()).to.deep.equal(['mcp:OUTPUT_PROPERTY_OPTIONAL:list_my_courses.output.courses[].title', 'mcp:OUTPUT_PROPERTY_REMOVED:list_my_courses.output.courses[].slug']);
    for (const id of mcpIds(report)) expect(changeById(report, id).severity, id).to.equal('breaking');
    expect(changeById(report, 'mcp:OUTPUT_PROPERTY_REMOVED:list_my_courses.output.courses[].slug').message).to.include('required property');
  });

  it('an optional input property and a new output property are safe; a required input property is breaking', () => {
    editTool('search_courses', (tool) => {
      properties(tool.inputSchema).level = { type: 'string', description: 'Only courses of this level.' };
      properties(tool.outputSchema).took = { type: 'integer' };
    });
    const optional = diff();
    expect(optional.status).to.equal(0);
    expect(changeById(optional.report, 'mcp:INPUT_PROPERTY_ADDED:search_courses.input.level').severity).to.equal('safe');
    expect(changeById(optional.report, 'mcp:OUTPUT_PROPERTY_ADDED:search_courses.output.took').severity).to.equal('safe');

    editTool('search_courses', (tool) => {
      tool.inputSchema.required = [...((tool.inputSchema.required as string[] | undefined) ?? []), 'level'];
    });
    const required = diff();
    expect(required.status).to.equal(1);
    const added = changeById(required.report, 'mcp:INPUT_PROPERTY_ADDED:search_courses.input.level');
    expect(added.severity).to.equal('breaking');
    expect(added.message).to.include('required');
  });

  it('narrowing an input (a lower maximum, a new pattern, a type taken away) is breaking; widening it is safe', () => {
    editTool('list_my_courses', (tool) => {
      properties(tool.inputSchema).first!.maximum = 50;
      properties(tool.inputSchema).cursor!.pattern = '^[A-Za-z0-9_-]+$';
    });
    const narrowed = diff();
    expect(narrowed.status).to.equal(1);
    expect(changeById(narrowed.report, 'mcp:INPUT_CONSTRAINTS_CHANGED:list_my_courses.input.first')).to.include({ severity: 'breaking', message: 'The constraints of `list_my_courses.input.first` changed: maximum 100 → 50.' });
    expect(changeById(narrowed.report, 'mcp:INPUT_CONSTRAINTS_CHANGED:list_my_courses.input.cursor').severity).to.equal('breaking');

    scratch.git('checkout', '--', TOOLS_FILE);
    editTool('list_my_courses', (tool) => {
      properties(tool.inputSchema).first!.maximum = 200;
      properties(tool.inputSchema).first!.type = 'number';
    });
    const widened = diff();
    expect(widened.status).to.equal(0);
    expect(changeById(widened.report, 'mcp:INPUT_CONSTRAINTS_CHANGED:list_my_courses.input.first').severity).to.equal('safe');
    expect(changeById(widened.report, 'mcp:INPUT_TYPE_CHANGED:list_my_courses.input.first').severity).to.equal('safe');
  });

  it('an output value that may now be null is breaking for readers', () => {
    editTool('list_my_courses', (tool) => {
      const course = properties(properties(tool.outputSchema).courses?.items as Record<string, unknown>);
      course.title = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    });
    const { report } = diff();
    expect(changeById(report, 'mcp:OUTPUT_TYPE_CHANGED:list_my_courses.output.courses[].title')).to.include({ severity: 'breaking', message: 'The type of `list_my_courses.output.courses[].title` changed from `string` to `string` | `null`.' });
  });

  it('a scope a tool newly needs is breaking; needing fewer is safe; becoming public is for a reviewer', () => {
    editTool('mark_notification_read', (tool) => {
      tool.scopes = ['account:write'];
    });
    editTool('list_my_courses', (tool) => {
      tool.scopes = ['account:read', 'account:write'];
    });
    editTool('get_my_course_syllabus', (tool) => {
      tool.scopes = [];
    });
    const { status, report } = diff();
    expect(status).to.equal(1);
    expect(changeById(report, 'mcp:SCOPE_CHANGED:mark_notification_read').severity).to.equal('safe');
    expect(changeById(report, 'mcp:SCOPE_CHANGED:list_my_courses')).to.include({ severity: 'breaking', message: 'The scopes tool `list_my_courses` needs changed from `account:read` to `account:read` and `account:write`.' });
    expect(changeById(report, 'mcp:SCOPE_CHANGED:get_my_course_syllabus').severity).to.equal('dangerous');
  });

  it('titles, descriptions and annotations are safe and documentation only: one row for a new title', () => {
    editTool('get_school_profile', (tool) => {
      tool.title = 'The school';
      tool.annotations.title = 'The school';
      tool.description = `${tool.description} Cached for a minute.`;
      properties(tool.outputSchema).name!.description = 'The school name.';
    });
    const { status, report } = diff();
    expect(status).to.equal(0);
    expect(mcpIds(report).sort()).to.deep.equal(['mcp:OUTPUT_DESCRIPTION_CHANGED:get_school_profile.output.name', 'mcp:TOOL_DESCRIPTION_CHANGED:get_school_profile', 'mcp:TOOL_TITLE_CHANGED:get_school_profile']);
    for (const id of mcpIds(report)) expect(changeById(report, id), id).to.include({ severity: 'safe', documentationOnly: true });
  });

  it('a breaking MCP change on the allowlist passes, and the Markdown report has an MCP section', () => {
    removeTool('list_consulting_services');
    fs.writeFileSync(path.join(scratch.dir, '.ci', 'contract-allowlist.yaml'), 'allow:\n  - change: "mcp:TOOL_REMOVED:list_consulting_services"\n    reason: replaced by search_courses, announced to the schools\n');
    const { status, report } = diff();
    expect(status).to.equal(0);
    expect(changeById(report, 'mcp:TOOL_REMOVED:list_consulting_services').allowedBecause).to.include('announced');
    const markdown = scratch.run(DIFF, ['HEAD']);
    expect(markdown.status, markdown.stderr).to.equal(0);
    expect(markdown.stdout).to.include('### MCP tools').and.include('`mcp:TOOL_REMOVED:list_consulting_services`');
  });

  it('a base revision from before the tools file existed has no MCP changes; a tools file that is not JSON is a usage error', () => {
    scratch.git('rm', '-q', '--cached', TOOLS_FILE);
    scratch.git('commit', '-q', '-m', 'no tools file');
    removeTool('search_courses');
    const older = diff();
    expect(older.status).to.equal(0);
    expect(mcpIds(older.report)).to.deep.equal([]);

    fs.writeFileSync(path.join(scratch.dir, TOOLS_FILE), '{ "variants": ');
    const broken = scratch.run(DIFF, ['main~1']);
    expect(broken.status).to.equal(2);
    expect(broken.stderr).to.include('generated/mcp-tools.json of working tree is not JSON').and.include('npm run codegen');
  });

  it('the changelog lists MCP changes in their own section and leaves description edits out', () => {
    removeTool('search_courses');
    editTool('list_my_courses', (tool) => {
      properties(tool.inputSchema).status = { type: 'string', enum: ['active', 'ended'] };
      tool.description = 'Another description.';
    });
    const result = scratch.run(CHANGELOG, ['HEAD', '--today', '2026-12-01', '--stdout']);
    expect(result.status, result.stderr).to.equal(0);
    const mcp = result.stdout.slice(result.stdout.indexOf('### MCP tools'));
    expect(mcp).to.include('#### Added\n\n- `list_my_courses.input.status`: New optional property `list_my_courses.input.status`.');
    expect(mcp).to.include('#### Removed\n\n- **Breaking:** `search_courses`: The tool `search_courses` was removed.');
    expect(mcp).to.not.include('description');
  });
});

describe('the JSON Schema comparison of tool inputs and outputs', () => {
  const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
  const rated = (before: Record<string, unknown>, after: Record<string, unknown>, side: 'input' | 'output') =>
    schemaChanges(before, after, side, `tool.${side}`).map((change) => `${change.severity} ${change.kind} ${change.where}`);

  it('an enum value taken away breaks callers; a new output enum value is for a reviewer; a new input value is safe', () => {
    const before = object({ state: { type: 'string', enum: ['a', 'b'] } });
    const fewer = object({ state: { type: 'string', enum: ['a'] } });
    const more = object({ state: { type: 'string', enum: ['a', 'b', 'c'] } });
    expect(rated(before, fewer, 'input')).to.deep.equal(['breaking INPUT_ENUM_CHANGED tool.input.state']);
    expect(rated(before, more, 'input')).to.deep.equal(['safe INPUT_ENUM_CHANGED tool.input.state']);
    expect(rated(before, more, 'output')).to.deep.equal(['dangerous OUTPUT_ENUM_CHANGED tool.output.state']);
    expect(rated(before, fewer, 'output')).to.deep.equal(['safe OUTPUT_ENUM_CHANGED tool.output.state']);
  });

  it('an input that may now be null is safe; an input that no longer may be is breaking', () => {
    const plain = object({ q: { type: 'string' } });
    const nullable = object({ q: { anyOf: [{ type: 'string' }, { type: 'null' }] } });
    expect(rated(plain, nullable, 'input')).to.deep.equal(['safe INPUT_TYPE_CHANGED tool.input.q']);
    expect(rated(nullable, plain, 'input')).to.deep.equal(['breaking INPUT_TYPE_CHANGED tool.input.q']);
  });

  it('refusing unknown input properties breaks callers that send them; nested properties keep their path', () => {
    expect(rated(object({}), object({}, { additionalProperties: false }), 'input')).to.deep.equal(['breaking INPUT_ADDITIONAL_PROPERTIES_CHANGED tool.input']);
    const nested = (required: string[]) => object({ filter: object({ from: { type: 'string' } }, { required }) });
    expect(rated(nested([]), nested(['from']), 'input')).to.deep.equal(['breaking INPUT_PROPERTY_REQUIRED tool.input.filter.from']);
    expect(rated(nested(['from']), nested([]), 'output')).to.deep.equal(['breaking OUTPUT_PROPERTY_OPTIONAL tool.output.filter.from']);
  });

  it('a schema change this comparison does not read (a union) is one row for a reviewer', () => {
    const before = object({ when: { oneOf: [{ type: 'string' }, { type: 'integer' }] } });
    const after = object({ when: { oneOf: [{ type: 'string' }] } });
    expect(rated(before, after, 'input')).to.deep.equal(['dangerous INPUT_SCHEMA_CHANGED tool.input.when']);
  });
});

describe('generated/mcp-tools.json', function () {
  this.timeout(120_000);

  it('is what the tools defined in src/mcp/tools/ publish (run npm run codegen after editing a tool)', () => {
    expect(fs.readFileSync(projectPath(TOOLS_FILE), 'utf8')).to.equal(mcpToolsText(currentMcpTools()));
  });

  it('npm run codegen:check fails when a tool was edited without regenerating it', () => {
    const dir = codegenScratchCopy();
    try {
      const file = path.join(dir, 'src', 'mcp', 'tools', 'public', 'school-profile.ts');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("'About this school ", "'About this very school "));
      const result = runCodegenCheck(dir);
      expect(result.status, result.stderr).to.equal(1);
      expect(result.stdout).to.match(/^\+.*About this very school/m);
      expect(result.stderr).to.contain('generated/ is stale').and.contain('the MCP tools');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`generated/mcp-tools.json against a running server, variant ${variant}`, (scratch) => liveToolsSuite(variant, scratch));
}

function liveToolsSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  const school = useMcpSchool(variant, scratch);
  const published = (JSON.parse(fs.readFileSync(projectPath(TOOLS_FILE), 'utf8')) as McpToolsFile).variants[variant] ?? [];
  /** The artefact's tool as `tools/list` shows it: everything but the scopes. */
  const listed = (tool: PublishedTool) => ({ name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations });
  const shown = (tool: Record<string, unknown>) => ({ name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations });

  for (const era of MCP_ERAS) {
    it(`an anonymous caller's tools/list (${era}) is exactly the artefact's public tools`, async () => {
      const tools = await withMcpClient(school.origin, era, undefined, async (client) => (await client.listTools()).tools);
      expect(tools.map((tool) => shown(tool as Record<string, unknown>))).to.deep.equal(published.filter((tool) => tool.scopes.length === 0).map(listed));
    });

    it(`a member's tools/list (${era}) is exactly the artefact's tools, in the same order`, async () => {
      const tools = await withMcpClient(school.origin, era, school.tokens.full, async (client) => (await client.listTools()).tools);
      expect(tools.map((tool) => shown(tool as Record<string, unknown>))).to.deep.equal(published.map(listed));
    });
  }

  it('every member tool asks a token without account scopes for exactly the scopes the artefact names (step-up, RFC 6750 3.1)', async () => {
    for (const tool of published.filter((candidate) => candidate.scopes.length > 0)) {
      const response = await fetch(`${school.origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${school.tokens.identity}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: {} } }),
      });
      expect(response.status, tool.name).to.equal(403);
      expect(response.headers.get('www-authenticate'), tool.name).to.include(`scope="${tool.scopes.join(' ')}"`);
    }
  });
}
