import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import type { Variant } from '../src/config/config.js';
import { createClient } from '../src/clients/clients.js';
import { swaggerUiDistFolder } from '../src/docs/assets.js';
import { buildMemberSchema } from '../src/graphql/schema.js';
import { launchChromium } from './support/browser.js';
import { createScratchDatabase, describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { makeUser, PASSWORD } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';
import { variantProfile } from '../src/variant.js';
import { attributes, directive } from './support/html-inspection.js';
import { rawGet } from './support/raw-http.js';

/**
 * GET /docs on every site, documentation from the contracts: an index, the admin API reference (Swagger UI
 * from the swagger-ui-dist package, served from this origin, over /openapi.json) and the member API reference
 * (rendered on the server from the variant's GraphQL schema).
 */

async function page(url: string): Promise<{ response: Response; html: string }> {
  const response = await fetch(url);
  return { response, html: await response.text() };
}

/** The value of one attribute of every tag of a kind: `attributes(html, 'script', 'src')`. */
for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`reference pages /docs, variant ${variant}`, (scratch) => docsSuite(variant, scratch));
}

function docsSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  let server: TestServer;
  let origin: string;
  const { schema, scopes } = buildMemberSchema(variantProfile(variant));

  before(async function () {
    this.timeout(60_000);
    server = await startTestServer(scratch(), { variant });
    origin = server.siteA.origin;
  });

  after(async () => {
    await server?.stop();
  });

  describe('/docs', () => {
    it('is a public HTML page linking both references, the contract, the agent guide and the discovery documents, every link answering 200', async () => {
      const { response, html } = await page(`${origin}/docs`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(html).to.contain('data-page="docs-index"').and.contain(server.siteA.name);
      const links = attributes(html, 'a', 'href');
      for (const path of [
        '/docs/admin-api',
        '/docs/member-api',
        '/openapi.json',
        '/auth.md',
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource',
        '/.well-known/openid-configuration',
      ]) {
        expect(links, path).to.include(path);
      }
      for (const link of new Set(links)) {
        expect((await fetch(new URL(link, origin))).status, link).to.equal(200);
      }
    });

    it('has a CSP that loads nothing and allows no script', async () => {
      const { response, html } = await page(`${origin}/docs`);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(directive(csp, 'default-src')).to.deep.equal(["'none'"]);
      expect(directive(csp, 'script-src')).to.deep.equal([]);
      expect(directive(csp, 'frame-ancestors')).to.deep.equal(["'none'"]);
      expect(html).not.to.match(/<script/i);
    });

    it('is per site: the other origin names its own site', async () => {
      const { html } = await page(`${server.siteB.origin}/docs`);
      expect(html).to.contain(server.siteB.name).and.not.contain(server.siteA.name);
    });

    it('is linked from the home page and from the agent guide /auth.md', async () => {
      const { html } = await page(`${origin}/`);
      expect(attributes(html, 'a', 'href')).to.include('/docs');
      const guide = await (await fetch(`${origin}/auth.md`)).text();
      expect(guide).to.contain(`| ${origin}/docs |`);
    });
  });

  describe('/docs/member-api', () => {
    let html: string;
    before(async () => {
      const result = await page(`${origin}/docs/member-api`);
      expect(result.response.status).to.equal(200);
      expect(result.response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      html = result.html;
    });

    it('names the endpoint of this variant and links how to authenticate', () => {
      const path = variant === 'A' ? '/member/graphql' : '/account/graphql';
      expect(html).to.contain(`${origin}${path}`);
      expect(html).to.contain('Authorization: Bearer');
      expect(attributes(html, 'a', 'href')).to.include('/auth.md');
    });

    it('has a section for every type of the schema the server runs, root types first', () => {
      const names = Object.keys(schema.getTypeMap()).filter((name) => !name.startsWith('__'));
      expect(names.length).to.be.greaterThan(20);
      for (const name of names) expect(html, name).to.contain(`<section id="type-${name}">`);
      expect(html.indexOf('id="type-Query"')).to.be.lessThan(html.indexOf('id="objects"'));
      if (variant === 'A') {
        expect(schema.getMutationType()).to.not.equal(null);
        expect(html).to.contain('<h2>Mutations</h2>').and.contain('id="type-Mutation"');
      } else {
        expect(html).not.to.contain('<h2>Mutations</h2>');
      }
    });

    it('documents every field of every object and interface with its scope, and every enum value', () => {
      for (const type of Object.values(schema.getTypeMap())) {
        if (type.name.startsWith('__')) continue;
        if ('getFields' in type) {
          for (const field of Object.keys(type.getFields())) expect(html, `${type.name}.${field}`).to.contain(`id="${type.name}.${field}"`);
        }
        if ('getValues' in type) {
          for (const value of type.getValues()) expect(html, `${type.name}.${value.name}`).to.contain(`id="${type.name}.${value.name}"`);
        }
      }
      expect(scopes.size).to.be.greaterThan(0);
      for (const [key, needed] of scopes) {
        const entry = new RegExp(`<dt id="${key.replace('.', '\\.')}">(.*?)</dt>`).exec(html);
        expect(entry, key).to.not.equal(null);
        for (const scope of needed) expect(entry?.[1], key).to.contain(`<code>${scope}</code>`);
      }
      expect(html).to.contain('<code>account:read</code>');
      if (variant === 'A') expect(html).to.contain('<code>account:write</code>');
    });

    it('escapes the SDL descriptions: `startedAfter: <now>` is text, not a tag', () => {
      expect(html).to.contain('<code>startedAfter: &lt;now&gt;</code>');
      expect(html).not.to.contain('<now>');
    });

    it('links every type reference to an anchor on the page', () => {
      const ids = new Set(attributes(html, '[a-z0-9]+', 'id'));
      const fragments = attributes(html, 'a', 'href').filter((href) => href.startsWith('#'));
      expect(fragments.length).to.be.greaterThan(100);
      for (const fragment of new Set(fragments)) expect(ids.has(fragment.slice(1)), fragment).to.equal(true);
    });

    it('shows the @requiresScope directive with its description', () => {
      expect(html).to.contain('id="directive-requiresScope"').and.contain('Any one of these scopes grants the field.');
    });
  });

  describe('/docs/admin-api (Swagger UI)', () => {
    let html: string;
    let csp: string;
    before(async () => {
      const result = await page(`${origin}/docs/admin-api`);
      expect(result.response.status).to.equal(200);
      expect(result.response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      html = result.html;
      csp = result.response.headers.get('content-security-policy') ?? '';
    });

    it('loads every script and stylesheet from this origin, and has no inline script', () => {
      const sources = [...attributes(html, 'script', 'src'), ...attributes(html, 'link', 'href')];
      expect(sources.length).to.equal(6);
      for (const source of sources) {
        expect(source, source).to.match(/^\/docs\/assets\/[a-z0-9.-]+\?v=[\w-]+$/);
        expect(new URL(source, origin).origin).to.equal(origin);
      }
      for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
        expect(script[1]).to.match(/\ssrc="/);
        expect(script[2]?.trim()).to.equal('');
      }
      expect(html).to.contain('data-openapi-url="/openapi.json"');
    });

    it("has a CSP that admits scripts and requests only from 'self'", () => {
      expect(directive(csp, 'default-src')).to.deep.equal(["'none'"]);
      expect(directive(csp, 'script-src')).to.deep.equal(["'self'"]);
      expect(directive(csp, 'connect-src')).to.deep.equal(["'self'"]);
      expect(directive(csp, 'frame-ancestors')).to.deep.equal(["'none'"]);
      expect(csp).not.to.match(/https?:|unsafe-eval/);
    });

    it('serves each asset with its content type, an ETag and a year of caching at its versioned URL; 304 on revalidation', async () => {
      const sources = [...attributes(html, 'script', 'src'), ...attributes(html, 'link', 'href')];
      const types: Record<string, string> = {
        'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
        'admin-api.js': 'text/javascript; charset=utf-8',
        'admin-api.css': 'text/css; charset=utf-8',
        'swagger-ui.css': 'text/css; charset=utf-8',
        'favicon-32x32.png': 'image/png',
        'favicon-16x16.png': 'image/png',
      };
      for (const source of sources) {
        const name = new URL(source, origin).pathname.split('/').pop() ?? '';
        const response = await fetch(new URL(source, origin));
        expect(response.status, source).to.equal(200);
        expect(response.headers.get('content-type'), source).to.equal(types[name]);
        expect(response.headers.get('cache-control'), source).to.equal('public, max-age=31536000, immutable');
        expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
        const etag = response.headers.get('etag') ?? '';
        expect(etag).to.match(/^"[\w-]+"$/);
        expect((await response.arrayBuffer()).byteLength).to.be.greaterThan(100);
        // fetch() turns a conditional request into Cache-Control: no-cache, which forbids a 304: ask on a raw socket.
        const again = await rawGet(server.port, `localhost:${server.port}`, source, { 'If-None-Match': etag, 'Accept-Encoding': 'gzip' });
        expect(again.status, source).to.equal(304);
        expect(again.body.length).to.equal(0);
      }
      const unversioned = await fetch(`${origin}/docs/assets/swagger-ui.css`);
      expect(unversioned.status).to.equal(200);
      expect(unversioned.headers.get('cache-control')).to.equal('public, max-age=300');
    });

    it('gzips the text assets for clients that accept it', async () => {
      const response = await rawGet(server.port, `localhost:${server.port}`, '/docs/assets/swagger-ui-bundle.js', { 'Accept-Encoding': 'gzip' });
      expect(response.status).to.equal(200);
      expect(response.headers['content-encoding']).to.equal('gzip');
      expect(response.headers.vary).to.match(/Accept-Encoding/i);
      expect(response.body.length).to.be.lessThan(1_000_000);
      const identity = await rawGet(server.port, `localhost:${server.port}`, '/docs/assets/swagger-ui-bundle.js');
      expect(identity.headers['content-encoding']).to.equal(undefined);
      expect(identity.body.length).to.be.greaterThan(1_000_000);
      expect(identity.headers.etag).to.not.equal(response.headers.etag);
      // The package's file, byte for byte, in both representations (read from disk when asked for, not kept).
      const file = fs.readFileSync(path.join(swaggerUiDistFolder(), 'swagger-ui-bundle.js'));
      expect(identity.body.equals(file)).to.equal(true);
      expect(Number(identity.headers['content-length'])).to.equal(file.length);
      expect(gunzipSync(response.body).equals(file)).to.equal(true);
      const head = await fetch(`${origin}/docs/assets/swagger-ui-bundle.js`, { method: 'HEAD', headers: { 'Accept-Encoding': 'identity' } });
      expect(head.status).to.equal(200);
      expect(Number(head.headers.get('content-length'))).to.equal(file.length);
      expect((await head.arrayBuffer()).byteLength).to.equal(0);
    });

    it('starts Swagger UI from a script file that points at /openapi.json and turns the external validator off', async () => {
      const script = await (await fetch(`${origin}/docs/assets/admin-api.js`)).text();
      expect(script).to.contain('SwaggerUIBundle(').and.contain('validatorUrl: null').and.contain("getAttribute('data-openapi-url')");
      expect(script).not.to.match(/https?:\/\//);
    });

    it('answers 404 for any other file name, including other files of the package', async () => {
      for (const name of ['index.html', 'swagger-initializer.js', 'swagger-ui-bundle.js.map', 'package.json', 'absolute-path.js', 'nope.js', '']) {
        expect((await fetch(`${origin}/docs/assets/${name}`)).status, name).to.equal(404);
      }
    });

    it('answers 404 to path traversal attempts, raw and encoded', async () => {
      for (const path of [
        '/docs/assets/../../package.json',
        '/docs/assets/../../../package.json',
        '/docs/assets/..%2f..%2fpackage.json',
        '/docs/assets/..%2F..%2F..%2Fpackage.json',
        '/docs/assets/%2e%2e%2f%2e%2e%2fpackage.json',
        '/docs/assets/..%5c..%5cpackage.json',
        '/docs/assets/swagger-ui.css%00.map',
        '/docs/assets/%2fetc%2fpasswd',
      ]) {
        const response = await rawGet(server.port, `localhost:${server.port}`, path);
        expect(response.status, path).to.equal(404);
        expect(response.body.toString('utf8'), path).not.to.contain('"dependencies"').and.not.contain('root:');
      }
    });
  });
}

// The browser needs one database and one variant: SQLite, variant A (the suites above cover the rest).
describe('browser: Swagger UI at /docs/admin-api in Chromium renders the admin API from this origin only [sqlite]', function () {
  this.timeout(90_000);
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

  for (const path of ['/docs/admin-api', '/docs/member-api', '/docs']) {
    it(`${path}: no request leaves the origin and the console has no errors (no CSP violation)`, async () => {
      if (!server || !browser) throw new Error('not started');
      const origin = server.siteA.origin;
      const context = await browser.newContext();
      const tab = await context.newPage();
      const offOrigin: string[] = [];
      const problems: string[] = [];
      const requested: string[] = [];
      tab.on('request', (request) => {
        const url = request.url();
        requested.push(url);
        if (!url.startsWith('data:') && new URL(url).origin !== origin) offOrigin.push(url);
      });
      tab.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      tab.on('pageerror', (error) => problems.push(error.message));
      try {
        await tab.goto(`${origin}${path}`);
        if (path === '/docs/admin-api') {
          // Tags start collapsed: open the two the checks below use.
          for (const tag of ['School', 'OAuth applications']) await tab.locator(`[data-tag="${tag}"]`).first().click();
          const operation = tab.locator('[id$="-getSchool"]').first();
          await operation.waitFor({ timeout: 30_000 });
          expect(await operation.innerText()).to.contain('/school');
          await operation.locator('.opblock-summary-control').first().click();
          await tab.locator('.opblock-body').first().waitFor();
          // More of the UI, so a CSP violation anywhere in it shows: a body example with syntax highlighting,
          // "Try it out" with its editor, a model.
          const create = tab.locator('[id$="-createOAuthApplication"]').first();
          await create.locator('.opblock-summary-control').first().click();
          await create.locator('.highlight-code, .body-param__example').first().waitFor();
          await create.getByRole('button', { name: 'Try it out' }).click();
          await create.locator('textarea').first().waitFor();
          await tab.locator('section.models .models-control').first().click();
          await tab.locator('section.models .json-schema-2020-12-expand-deep-button').first().click();
          await tab.locator('section.models .json-schema-2020-12-body:not(.json-schema-2020-12-body--collapsed)').first().waitFor();
          expect(requested).to.include(`${origin}/openapi.json`);
        } else {
          await tab.locator('main').waitFor();
        }
        await tab.waitForLoadState('networkidle');
      } finally {
        await context.close();
      }
      expect(offOrigin).to.deep.equal([]);
      expect(problems).to.deep.equal([]);
    });
  }

  it('/docs/admin-api: "Authorize" signs an operator in through /docs/oauth2-redirect.html (PKCE, resource) and "Try it out" calls getSchool', async () => {
    if (!server || !browser || !scratch) throw new Error('not started');
    const origin = server.siteA.origin;
    const operator = await makeUser(scratch.db, server.siteA, ['operator'], 'Docs Operator');
    const { client } = await createClient(scratch.db, server.siteA.id, {
      name: 'API reference',
      audience: 'operator',
      confidential: false,
      scopes: ['school:read'],
      redirectUris: [`${origin}/docs/oauth2-redirect.html`],
    });
    const context = await browser.newContext();
    const tab = await context.newPage();
    const offOrigin: string[] = [];
    const problems: string[] = [];
    context.on('request', (request) => {
      if (new URL(request.url()).origin !== origin && !request.url().startsWith('data:')) offOrigin.push(request.url());
    });
    tab.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    tab.on('pageerror', (error) => problems.push(error.message));
    try {
      await tab.goto(`${origin}/docs/admin-api`);
      await tab.getByRole('button', { name: 'Authorize' }).first().click();
      const dialog = tab.locator('.dialog-ux');
      await dialog.locator('#client_id_authorizationCode').fill(client.clientId);
      await dialog.locator('label[for="school:read-authorizationCode-checkbox-oauth2"]').click();
      expect(await dialog.locator('input[data-value="school:read"]').isChecked()).to.equal(true);
      const [popup] = await Promise.all([context.waitForEvent('page'), dialog.locator('button.modal-btn.authorize').click()]);
      popup.on('console', (message) => {
        if (message.type() === 'error') problems.push(`popup: ${message.text()}`);
      });
      await popup.fill('#email', operator.email);
      await popup.fill('#password', PASSWORD);
      await popup.getByRole('button', { name: 'Sign in' }).click();
      await Promise.all([popup.waitForEvent('close'), popup.getByRole('button', { name: 'Approve' }).click()]);
      await dialog.locator('button', { hasText: 'Logout' }).waitFor();
      expect(await dialog.innerText()).to.contain('Authorized');
      await dialog.locator('button', { hasText: 'Close' }).click();
      await tab.locator('[data-tag="School"]').first().click();
      const operation = tab.locator('[id$="-getSchool"]').first();
      await operation.locator('.opblock-summary-control').first().click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.getByRole('button', { name: 'Execute' }).click();
      const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
      await status.waitFor();
      expect((await status.innerText()).trim()).to.equal('200');
      expect(await operation.locator('.live-responses-table').innerText()).to.contain(server.siteA.name);
    } finally {
      await context.close();
    }
    expect(offOrigin).to.deep.equal([]);
    expect(problems).to.deep.equal([]);
  });
});
