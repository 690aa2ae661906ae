import { expect } from 'chai';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { buildSchema, printSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import type { Browser } from 'playwright-core';
import type { Variant } from '../src/config/config.js';
import { buildMemberSchema } from '../src/graphql/schema.js';
import { typeDefsFor } from '../src/graphql/sdl.js';
import { variantProfile } from '../src/variant.js';
import { launchChromium } from './support/browser.js';
import { createScratchDatabase, describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';
import { attributes, directive } from './support/html-inspection.js';
import { rawGet } from './support/raw-http.js';

/**
 * What a frontend team gets without a token: the member SDL of the deployed variant at
 * `{member API path}/schema.graphql` (public, cacheable, revalidated with 304), and GraphiQL at
 * /docs/member-api/explorer, every file from this origin, running queries with a pasted member token.
 */

for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`member SDL and explorer, variant ${variant}`, (scratch) => explorerSuite(variant, scratch));
}

function explorerSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  let server: TestServer;
  let origin: string;
  const profile = variantProfile(variant);
  const sdlPath = `${profile.memberGraphql.path}/schema.graphql`;
  const { schema } = buildMemberSchema(profile);

  before(async function () {
    this.timeout(60_000);
    server = await startTestServer(scratch(), { variant });
    origin = server.siteA.origin;
  });
  after(() => server?.stop());

  describe(`GET ${sdlPath}`, () => {
    it('answers without a token: the SDL of the schema the endpoint runs, every type and field, directives kept', async () => {
      const response = await fetch(`${origin}${sdlPath}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('application/graphql; charset=utf-8');
      const sdl = await response.text();
      // The schema of the server's SDL files: printed alike, they are equal (descriptions included).
      expect(printSchema(buildSchema(sdl))).to.equal(printSchema(makeExecutableSchema({ typeDefs: typeDefsFor(profile) })));
      expect(sdl).to.contain('@requiresScope(scopes: ["account:read"])');
      expect(sdl).to.contain('scalar DateTime @specifiedBy(url: "https://scalars.graphql.org/andimarek/date-time")');
      expect(sdl).to.contain('scalar Money');
      expect(sdl.includes('type Mutation')).to.equal(variant === 'A');
    });

    it('keeps @deprecated on what the schema deprecates', async () => {
      const deprecated = Object.values(schema.getTypeMap())
        .filter((type) => !type.name.startsWith('__') && 'getFields' in type)
        .flatMap((type) => Object.values((type as { getFields(): Record<string, { deprecationReason?: string | null }> }).getFields()))
        .filter((field) => field.deprecationReason);
      const sdl = await (await fetch(`${origin}${sdlPath}`)).text();
      expect((sdl.match(/@deprecated/g) ?? []).length).to.be.at.least(deprecated.length);
      const names = (graphqlSchema: GraphQLSchema) => Object.keys(graphqlSchema.getTypeMap()).sort();
      expect(names(buildSchema(sdl))).to.deep.equal(names(schema));
    });

    it('is cacheable by anyone, with a strong ETag answered by 304, the same on every site', async () => {
      const first = await rawGet(server.port, `localhost:${server.port}`, sdlPath);
      expect(first.headers['cache-control']).to.match(/^public, max-age=\d+$/);
      expect(first.headers['access-control-allow-origin']).to.equal('*');
      expect(first.headers['x-content-type-options']).to.equal('nosniff');
      const etag = first.headers.etag ?? '';
      expect(etag).to.match(/^"[\w-]+"$/);
      const again = await rawGet(server.port, `localhost:${server.port}`, sdlPath, { 'If-None-Match': etag });
      expect(again.status).to.equal(304);
      expect(again.body.length).to.equal(0);
      const otherSite = await rawGet(server.port, `127.0.0.1:${server.port}`, sdlPath);
      expect(otherSite.status).to.equal(200);
      expect(otherSite.headers.etag).to.equal(etag);
      const head = await fetch(`${origin}${sdlPath}`, { method: 'HEAD' });
      expect(head.status).to.equal(200);
    });

    it('answers other methods with the JSON error clients read, not a page', async () => {
      const response = await fetch(`${origin}${sdlPath}`, { method: 'POST', headers: { accept: 'text/html' } });
      expect(response.status).to.equal(405);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
    });
  });

  describe('GET /docs/member-api/explorer', () => {
    let html: string;
    let csp: string;
    before(async function () {
      this.timeout(120_000);
      const response = await fetch(`${origin}/docs/member-api/explorer`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      html = await response.text();
      csp = response.headers.get('content-security-policy') ?? '';
    });

    it('mounts GraphiQL on this variant\'s member endpoint and says how to get a token', () => {
      expect(html).to.contain(`data-endpoint="${profile.memberGraphql.path}"`);
      expect(html).to.contain(`${origin}${profile.memberGraphql.path}`).and.contain('Headers').and.contain('Bearer');
      const links = attributes(html, 'a', 'href');
      expect(links).to.include('/auth.md').and.include('/docs/member-api').and.include(sdlPath);
    });

    it('loads every script and stylesheet from /docs/assets at a versioned URL, with no inline script', async function () {
      // About 1.8 MB of files, each fetched and revalidated: room for a busy machine.
      this.timeout(180_000);
      const sources = [...attributes(html, 'script', 'src'), ...attributes(html, 'link', 'href'), ...attributes(html, 'div', 'data-schema-url')];
      expect(sources).to.have.length(7);
      for (const source of sources) {
        expect(source, source).to.match(/^\/docs\/assets\/[a-z0-9.-]+\?v=[\w-]+$/);
        const response = await fetch(new URL(source, origin));
        expect(response.status, source).to.equal(200);
        expect(response.headers.get('cache-control'), source).to.equal('public, max-age=31536000, immutable');
        const etag = response.headers.get('etag') ?? '';
        // fetch() asked for gzip, and each encoding has its own ETag.
        const again = await rawGet(server.port, `localhost:${server.port}`, source, { 'If-None-Match': etag, 'Accept-Encoding': 'gzip' });
        expect(again.status, source).to.equal(304);
      }
      for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
        expect(script[1]).to.match(/\ssrc="/);
        expect(script[2]?.trim()).to.equal('');
      }
    });

    it('serves the schema GraphiQL reads as an introspection result of the running schema', async () => {
      const [schemaUrl] = attributes(html, 'div', 'data-schema-url');
      const introspection = (await (await fetch(new URL(schemaUrl ?? '', origin))).json()) as IntrospectionQuery;
      expect(introspection.__schema.types.map((type) => type.name).sort()).to.deep.equal(Object.keys(schema.getTypeMap()).sort());
    });

    it("has its own CSP: scripts and requests only from 'self', no eval, no framing", () => {
      expect(directive(csp, 'default-src')).to.deep.equal(["'none'"]);
      expect(directive(csp, 'script-src')).to.deep.equal(["'self'"]);
      expect(directive(csp, 'connect-src')).to.deep.equal(["'self'"]);
      expect(directive(csp, 'frame-ancestors')).to.deep.equal(["'none'"]);
      expect(csp).not.to.match(/https?:|unsafe-eval/);
    });

    it('is linked from /docs and /docs/member-api', async () => {
      for (const page of ['/docs', '/docs/member-api']) {
        const links = attributes(await (await fetch(`${origin}${page}`)).text(), 'a', 'href');
        expect(links, page).to.include('/docs/member-api/explorer').and.include(sdlPath);
      }
    });
  });
}

// The browser needs one database and one variant: SQLite, variant A (the suites above cover the rest).
describe('browser: GraphiQL at /docs/member-api/explorer in Chromium [sqlite]', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase | undefined;
  let server: TestServer | undefined;
  let browser: Browser | undefined;

  before(async function () {
    scratch = await createScratchDatabase('sqlite');
    server = await startTestServer(scratch);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await scratch?.drop();
  });

  it('renders from this origin only with no console error (no CSP violation), shows the schema without a token, and runs a query with a pasted token', async () => {
    if (!server || !browser || !scratch) throw new Error('not started');
    const origin = server.siteA.origin;
    const member = await makeUser(scratch.db, server.siteA, ['student'], 'Explorer Member');
    const token = await memberToken(scratch.db, server.siteA, member);
    const context = await browser.newContext();
    const tab = await context.newPage();
    const offOrigin: string[] = [];
    const problems: string[] = [];
    context.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith('data:') && new URL(url).origin !== origin) offOrigin.push(url);
    });
    tab.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    tab.on('pageerror', (error) => problems.push(error.message));
    try {
      await tab.goto(`${origin}/docs/member-api/explorer`);
      await tab.locator('.graphiql-container').waitFor({ timeout: 60_000 });
      // The documentation explorer lists the root type from the served schema, before any token.
      await tab.locator('button[aria-label="Show Documentation Explorer"]').click();
      await tab.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().waitFor();
      // Paste the token into the Headers editor (CodeMirror 5) and run the default query.
      // Paste the token: select the Headers editor's text and replace it, as a person pasting does.
      await tab.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').click();
      await tab.keyboard.press('Control+A');
      await tab.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${token}` }));
      // GraphiQL reads an editor's text after a short debounce: run until the request carries the pasted token.
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 200; attempt += 1) {
        const [answer] = await Promise.all([
          tab.waitForResponse((response) => new URL(response.url()).pathname === '/member/graphql' && response.request().method() === 'POST'),
          tab.locator('button.graphiql-execute-button').click(),
        ]);
        status = answer.status();
        if (status !== 200) {
          expect(await answer.request().headerValue('authorization')).to.equal('Bearer PASTE-A-MEMBER-ACCESS-TOKEN');
          await tab.waitForTimeout(250);
        }
      }
      expect(status).to.equal(200);
      await tab.locator('.graphiql-response').getByText(member.email).first().waitFor();
    } finally {
      await context.close();
    }
    expect(offOrigin).to.deep.equal([]);
    expect(problems).to.deep.equal([]);
  });
});
