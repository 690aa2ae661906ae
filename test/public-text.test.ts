import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import { findUserByEmail } from '../src/accounts/users.js';
import type { Variant } from '../src/config/config.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import { DOCS_PATHS } from '../src/docs/paths.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { gql, graphqlPath, memberToken } from './support/member-api.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Public text stands on its own: what users read (the served GraphQL schema, /openapi.json, /auth.md, the /docs pages,
 * the home page, the MCP server's instructions and tool list, README.md and docs/) never cites our internal
 * requirements document, its section names, or internal issue numbers. Users do not have that document, so a
 * "(spec: …)" or "see Authentication 5" tells them nothing. Code comments may keep citing it; they are not served.
 *
 * One store is enough: the text does not depend on the database.
 */

/** Mentions of the requirements document itself. `specifiedBy`, "specific" and "specification" do not match. */
const DOCUMENT = /\bspecs?\b|service-spec/gi;

/**
 * "spec" naming another standard is not a mention of ours. None is served today; add the exact phrase here if one
 * ever is (e.g. "the GraphQL-over-HTTP spec").
 */
const OTHER_STANDARDS: RegExp[] = [];

/** Section names of the requirements document, cited with or without the word "spec". Case-sensitive on purpose. */
const SECTION_NAMES =
  /What the service does|Resources and their fields|GraphQL operations on the member API|States and transitions|viewer \(root of the member GraphQL API\)|\bCourse node\b|\bPayment node\b|\bToken record\b|\bAuthentication \d+|"not shown"|not shown by the/g;

/** Internal tracker references: the word "issue" or "issues" followed by a number, with or without "#". */
const ISSUES = /\bissues? #?\d+/gi;

/** Every offending passage of `text`, with a little context, for the failure message (one entry per passage). */
function findings(text: string): string[] {
  const hits: number[] = [];
  for (const match of text.matchAll(DOCUMENT)) {
    const around = text.slice(Math.max(0, match.index - 40), match.index + match[0].length + 10);
    if (!OTHER_STANDARDS.some((allowed) => allowed.test(around))) hits.push(match.index);
  }
  for (const pattern of [SECTION_NAMES, ISSUES]) {
    for (const match of text.matchAll(pattern)) hits.push(match.index);
  }
  const passages: number[] = [];
  for (const index of hits.sort((a, b) => a - b)) {
    if (passages.length === 0 || index - passages[passages.length - 1]! > 60) passages.push(index);
  }
  return passages.map((index) => text.slice(Math.max(0, index - 60), index + 80).replace(/\s+/g, ' '));
}

function expectClean(where: string, text: string): void {
  expect(text.length, `${where} is not empty`).to.be.greaterThan(0);
  const found = findings(text);
  expect(found.length, `${where} cites the internal requirements document or an internal issue:\n  … ${found.join(' …\n  … ')} …\n`).to.equal(0);
}

describe('public text does not cite the internal requirements document', function () {
  describe('the pattern', () => {
    it('catches citations and leaves other words alone', () => {
      for (const text of ['Needs `account:read` (spec: "Errors").', 'values not given by the spec; chosen here', 'see the spec, Authentication 5', 'Spec: viewer', '../shared/spec/service-spec.md', 'the SPEC', 'issue 3', 'Issues 4', '(Authentication 4)', 'sections "Course node" and "Payment node"', 'shape "not shown"']) {
        expect(findings(text), text).to.have.length.greaterThan(0);
      }
      for (const text of ['@specifiedBy(url: "…")', 'specifiedByURL', 'a more specific code', 'the OpenAPI specification', 'the MCP specification', 'ToolSpec', 'issued to an operator', 'course nodes with the full syllabus', 'not shown to members']) {
        expect(findings(text), text).to.deep.equal([]);
      }
    });
  });

  describe('README.md and docs/ on disk', () => {
    const root = path.resolve(import.meta.dirname, '..');
    const files = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((name) => /\.(md|json)$/.test(name)).sort().map((name) => `docs/${name}`)];
    for (const file of files) {
      it(file, () => expectClean(file, fs.readFileSync(path.join(root, file), 'utf8')));
    }
  });

  const kind = TEST_DATABASE_KINDS.includes('sqlite') ? 'sqlite' : TEST_DATABASE_KINDS[0];
  if (kind === undefined) return;

  let scratch: ScratchDatabase;
  before(async function () {
    this.timeout(60_000);
    scratch = await createScratchDatabase(kind);
  });
  after(async () => {
    await scratch?.drop();
  });

  for (const variant of ['A', 'B'] as const satisfies readonly Variant[]) {
    describe(`what a variant ${variant} server serves [${kind}]`, () => servedTextSuite(variant, () => scratch));
  }
});

function servedTextSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  let server: TestServer;
  let origin: string;
  let token: string;

  before(async function () {
    this.timeout(60_000);
    server = await startTestServer(scratch(), { variant });
    origin = server.siteA.origin;
    // The demo school turns on what adds text: the MCP connections beta, vendor platforms, courses in the catalogue.
    await importSiteDocument(scratch().db, buildDemoDocument(origin, new Date()));
    const mia = await findUserByEmail(scratch().db, DEMO_LOGINS.member.email);
    if (!mia) throw new Error('demo member missing');
    token = await memberToken(scratch().db, server.siteA, mia);
  });
  after(async () => {
    await server?.stop();
  });

  async function get(url: string): Promise<string> {
    const response = await fetch(url);
    expect(response.status, url).to.equal(200);
    return response.text();
  }

  /** A page that may answer an error status (a sign-in page, an error page), but never a server error. */
  async function page(url: string): Promise<string> {
    const response = await fetch(url);
    expect(response.status, url).to.be.below(500);
    expect(response.headers.get('content-type'), url).to.match(/^text\/html/);
    return response.text();
  }

  it(`the member GraphQL schema served at ${graphqlPath(variant)} (introspection, every description)`, async () => {
    const query = getIntrospectionQuery({ descriptions: true, schemaDescription: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true });
    const result = await gql<IntrospectionQuery>(origin, variant, token, query);
    expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
    const sdl = printSchema(buildClientSchema(result.data!));
    expect(sdl).to.include('type Viewer');
    expectClean(`the introspected SDL of ${graphqlPath(variant)}`, sdl);
  });

  it('/openapi.json', async () => expectClean('/openapi.json', await get(`${origin}/openapi.json`)));

  it('/auth.md, with the MCP connections beta on and off', async () => {
    expectClean(`/auth.md (beta on)`, await get(`${origin}/auth.md`));
    expectClean(`/auth.md (beta off)`, await get(`${server.siteB.origin}/auth.md`));
  });

  it('the home page and every /docs page', async () => {
    for (const pathname of ['/', DOCS_PATHS.index, DOCS_PATHS.memberApi, DOCS_PATHS.adminApi, DOCS_PATHS.oauth2Redirect]) {
      expectClean(pathname, await get(`${origin}${pathname}`));
    }
  });

  it('the pages a signed-out person reaches: the admin sign-in and an authorization error page', async () => {
    for (const pathname of ['/admin', '/admin/sign-in', '/oauth/authorize', '/oauth/authorize?client_id=unknown&response_type=code']) {
      expectClean(pathname, await page(`${origin}${pathname}`));
    }
  });

  it('the MCP server instructions and tool list, anonymous and with a member token', async () => {
    for (const bearer of [undefined, token]) {
      const client = new Client({ name: 'public-text-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), bearer === undefined ? undefined : { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
      try {
        const who = bearer === undefined ? 'anonymous' : 'member';
        expectClean(`/mcp instructions (${who})`, client.getInstructions() ?? '(none)');
        expectClean(`/mcp tools/list (${who})`, JSON.stringify((await client.listTools()).tools, null, 1));
      } finally {
        await client.close();
      }
    }
  });
}
