import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createSite } from '../src/sites/sites.js';
import { USAGE_EXPORT_FORMAT, type UsageExport } from '../src/usage/export-format.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeClient } from './support/oauth-fixtures.js';
import { runCli } from './support/processes.js';
import { seedUsage } from './support/usage-seed.js';

/**
 * The examples of docs/usage.md, "Reading the usage", run as written: each `$ schoolgate usage …` line against a
 * database holding the docs' site (https://school.example) and some usage, and each `curl` line's address against a
 * running server (its origin in place of the docs' site, an operator's token as $TOKEN).
 */

const DOC = path.resolve('docs/usage.md');
const DOCS_SITE = 'https://school.example';

function readingSection(): string {
  const text = fs.readFileSync(DOC, 'utf8');
  const start = text.indexOf('\n## Reading the usage');
  expect(start, 'docs/usage.md has a "Reading the usage" section').to.be.greaterThan(-1);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** `$ schoolgate …` lines, as argument lists (the examples use no quoting), with the line of output after each. */
function cliExamples(section: string): Array<{ args: string[]; firstOutput: string }> {
  const lines = section.split('\n');
  return lines.flatMap((line, index) => (line.startsWith('$ schoolgate ') ? [{ args: line.slice('$ schoolgate '.length).trim().split(/\s+/), firstOutput: lines[index + 1] ?? '' }] : []));
}

function curlAddresses(section: string): string[] {
  return [...section.matchAll(/^curl .*'(https:\/\/school\.example[^']*)'$/gm)].map((match) => match[1] ?? '');
}

describeEachDatabase('docs/usage.md: the examples of Reading the usage run as written', (scratch) => {
  const admin = useAdminApi(scratch, { siteB: false });

  before(async () => {
    const { db } = admin;
    const site = await createSite(db, { origin: DOCS_SITE, name: 'Docs School', subdomain: 'docs-school' });
    const reader = await makeClient(db, site, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'], name: 'Reader App' });
    await seedUsage(db, [
      { siteId: site.id, api: 'graphql', element: 'Course.title', clientRef: reader.client.ref, uses: 5 },
      { siteId: site.id, api: 'graphql', element: 'Course.slug', clientRef: reader.client.ref, uses: 2, daysAgo: 1 },
      { siteId: site.id, api: 'mcp', element: 'list_courses', clientRef: 0, uses: 7 },
    ]);
  });

  it('has CLI examples of the report and the export, and each runs and prints what the docs show', async () => {
    const examples = cliExamples(readingSection());
    expect(examples.map((example) => example.args.slice(0, 2).join(' '))).to.include.members(['usage --site', 'usage export']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'usage-docs-'));
    try {
      for (const { args: written, firstOutput } of examples) {
        // The file an example writes goes to a scratch folder, not the project's (the CLI runs from the project).
        const args = written.map((arg, index) => (written[index - 1] === '--output' ? path.join(dir, arg) : arg));
        const result = await runCli(args, { DATABASE_URL: scratch().url });
        expect(result.code, `schoolgate ${args.join(' ')}: ${result.stderr}`).to.equal(0);
        // The first line of output, up to its first figure (dates and counts differ from the docs').
        const shape = firstOutput.split(/\d/)[0] ?? '';
        expect(shape.length, firstOutput).to.be.greaterThan(10);
        expect(result.stdout.startsWith(shape), `${result.stdout}\ndoes not start like the docs' ${firstOutput}`).to.equal(true);
        const output = args[args.indexOf('--output') + 1];
        if (args[1] === 'export' && output !== undefined) {
          const document = JSON.parse(fs.readFileSync(output, 'utf8')) as UsageExport;
          expect(document).to.include({ format: USAGE_EXPORT_FORMAT, site: DOCS_SITE });
          expect(document.usage.map((element) => element.element)).to.include.members(['Course.title', 'Course.slug', 'list_courses']);
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has admin API examples whose addresses the admin API answers with 200', async () => {
    const addresses = curlAddresses(readingSection());
    expect(addresses).to.have.length.greaterThan(0);
    for (const address of addresses) {
      const url = new URL(address);
      expect(url.pathname.startsWith('/api/admin/v1/')).to.equal(true);
      const answer = await admin.api.request('GET', url.pathname.slice('/api/admin/v1'.length), { rawQuery: url.search.slice(1) });
      expect(answer.status, `${address}: ${answer.text}`).to.equal(200);
    }
  });

  it('names every field of the export format in its table', () => {
    const section = readingSection();
    const sample: UsageExport = { format: USAGE_EXPORT_FORMAT, site: '', variant: '', generatedAt: '', from: '', to: '', days: 1, usage: [], trustedDocuments: [] };
    for (const field of Object.keys(sample)) expect(section, field).to.contain(`\`${field}`);
    for (const field of ['clientId', 'clientName', 'uses', 'lastUsedAt', 'kind', 'documents', 'id', 'operationNames', 'document', 'publishedAt']) expect(section, field).to.contain(field);
  });
});
