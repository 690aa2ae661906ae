import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { findUserByEmail } from '../src/accounts/users.js';
import type { Variant } from '../src/config/config.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { memberToken } from './support/member-api.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * GET /auth.md (spec: "A plain-text guide for agents is served at /auth.md"): markdown generated from the live
 * site's metadata, in the order discover → pick a method → register → use the credential → handle errors → revoke,
 * naming only this site's URLs, every one of which answers.
 */

/** Every absolute http(s) URL in a text, without trailing punctuation. */
function urlsIn(text: string): string[] {
  return [...new Set([...text.matchAll(/https?:\/\/[^\s`'"<>|)\]]+/g)].map((match) => match[0].replace(/[.,;:]+$/, '')))];
}

async function guideOf(origin: string): Promise<{ response: Response; text: string }> {
  const response = await fetch(`${origin}/auth.md`);
  return { response, text: await response.text() };
}

async function withMemberClient<T>(origin: string, token: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'auth-md-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

async function memberToolNames(origin: string, token: string): Promise<string[]> {
  return withMemberClient(origin, token, async (client) => (await client.listTools()).tools.map((tool) => tool.name));
}

for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`agent guide /auth.md, variant ${variant}`, (scratch) => guideSuite(variant, scratch));
}

function guideSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  let server: TestServer;
  let origin: string;

  before(async function () {
    this.timeout(60_000);
    server = await startTestServer(scratch(), { variant });
    origin = server.siteA.origin;
    await importSiteDocument(scratch().db, buildDemoDocument(origin, new Date()));
  });

  after(async () => {
    await server?.stop();
  });

  it('is served as text/markdown; charset=utf-8, in the order discover, pick a method, register, use the credential, handle errors, revoke', async () => {
    const { response, text } = await guideOf(origin);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
    expect(text.startsWith('# Agent guide: Northwind Academy of Design')).to.equal(true);
    const steps = ['## 1. Discover', '## 2. Pick a method', '## 3. Register', '## 4. Use the credential', '## 5. Handle errors', '## 6. Revoke'].map((heading) => text.indexOf(heading));
    expect(steps.every((index) => index > 0), 'every step has its section').to.equal(true);
    expect(steps).to.deep.equal([...steps].sort((a, b) => a - b));
  });

  it('names the endpoints, scopes and methods of the live authorization server metadata', async () => {
    const { text } = await guideOf(origin);
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    for (const field of ['issuer', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'revocation_endpoint', 'registration_endpoint', 'jwks_uri', 'end_session_endpoint']) {
      expect(text, field).to.include(String(metadata[field]));
    }
    for (const scope of metadata.scopes_supported as string[]) expect(text, scope).to.include(`\`${scope}\``);
    for (const method of metadata.token_endpoint_auth_methods_supported as string[]) expect(text).to.include(`\`${method}\``);
    expect(text).to.include(`${origin}/.well-known/oauth-protected-resource`);
    expect(text).to.include(`resource=${origin}`);
    expect(text).to.include(`${origin}/mcp`);
    expect(text).to.include(`${origin}${variant === 'A' ? '/member/graphql' : '/account/graphql'}`);
  });

  it('tells member routes from operator routes, and says the vendor agent-authentication extension is unsupported with no claim step', async () => {
    const { text } = await guideOf(origin);
    expect(text).to.include('Member client');
    expect(text).to.include('Operator client');
    expect(text).to.include('no self-serve route');
    expect(text).to.include('Developers, OAuth applications');
    expect(text).to.include('MCP connections beta');
    expect(text).to.include('not open dynamic registration');
    expect(text).to.include('Client ID Metadata Document');
    expect(text).to.match(/vendor-defined agent-authentication extension/);
    expect(text).to.include('There is no claim step');
    expect(text).to.include('account:read');
  });

  it('lists the error codes and what to do, 503 temporarily_unavailable included', async () => {
    const { text } = await guideOf(origin);
    for (const code of ['invalid_request', 'invalid_client', 'invalid_grant', 'invalid_scope', 'invalid_target', 'invalid_client_metadata', 'unauthorized_client', 'invalid_token', 'insufficient_scope', 'temporarily_unavailable']) {
      expect(text, code).to.include(`\`${code}\``);
    }
    expect(text).to.include('keep your tokens');
    expect(text).to.include('not bound to a user');
    expect(text).to.include('different organization');
  });

  if (variant === 'A') {
    it('says variant A has no introspection and the client must store the resource it sent', async () => {
      const { text } = await guideOf(origin);
      expect(text).to.include('has no introspection endpoint');
      expect(text).to.include('Store the `resource` you sent');
      expect(text).not.to.include('/api/oauth/introspect');
      expect(text).to.include('`school_id`');
    });
  } else {
    it("names variant B's introspection endpoint for reading the binding back", async () => {
      const { text } = await guideOf(origin);
      const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(text).to.include(String(metadata.introspection_endpoint));
      expect(text).to.include('RFC 7662');
      expect(text).not.to.include('has no introspection endpoint');
    });
  }

  it('lists every MCP tool of the variant with the scope it needs', async () => {
    const { text } = await guideOf(origin);
    const mia = await findUserByEmail(scratch().db, DEMO_LOGINS.member.email);
    if (!mia) throw new Error('no demo member');
    const names = await memberToolNames(origin, await memberToken(scratch().db, server.siteA, mia));
    expect(names.length).to.be.above(5);
    for (const name of names) expect(text, name).to.include(`\`${name}\``);
    expect(text).to.include('member token with `account:read`');
  });

  it('lists every MCP resource and resource template of the variant with its URI and the scope it needs, and every prompt', async () => {
    const { text } = await guideOf(origin);
    const mia = await findUserByEmail(scratch().db, DEMO_LOGINS.member.email);
    if (!mia) throw new Error('no demo member');
    const host = new URL(origin).host;
    const listed = await withMemberClient(origin, await memberToken(scratch().db, server.siteA, mia), async (client) => {
      // The first page holds every fixed resource (they come before the templates' instances).
      const fixed = (await client.listResources()).resources.filter((resource) => !resource.uri.endsWith('/syllabus'));
      const templates = (await client.listResourceTemplates()).resourceTemplates;
      const prompts = (await client.listPrompts()).prompts;
      return { fixed, templates, prompts };
    });
    expect(text).to.include('**MCP resources**');
    expect(text).to.include(`\`school://${host}/…\``);
    for (const resource of listed.fixed) expect(text, resource.uri).to.include(`\`${resource.uri}\``).and.to.include(`\`${resource.name}\``);
    for (const template of listed.templates) expect(text, template.uriTemplate).to.include(`\`${template.uriTemplate}\``);
    for (const uri of [`school://${host}/profile`, `school://${host}/courses`, `school://${host}/courses/{slug}/syllabus`, `school://${host}/me/courses`, `school://${host}/me/courses/{slug}/syllabus`, `school://${host}/me/schedule`]) {
      expect(text, uri).to.include(`\`${uri}\``);
    }
    const row = (name: string) => text.split('\n').find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';
    expect(row('school-profile')).to.include('nothing (public)');
    expect(row('my-courses')).to.include('member token with `account:read`');
    expect(text).to.include('`-32602`');
    for (const prompt of listed.prompts) expect(row(prompt.name), prompt.name).to.include(prompt.description?.split('.')[0] ?? prompt.name);
    if (listed.prompts.length > 0) expect(text).to.include('**MCP prompts**');
  });

  it('contains only URLs of this site, and every one of them answers (not 404, not 5xx; POST-only endpoints answer a GET with 405)', async function () {
    this.timeout(120_000);
    const { text } = await guideOf(origin);
    const urls = urlsIn(text);
    expect(urls.length).to.be.above(8);
    for (const url of urls) {
      expect(new URL(url).origin, url).to.equal(origin);
      const response = await fetch(url, { redirect: 'manual' });
      await response.arrayBuffer();
      expect(response.status, `GET ${url}`).to.not.equal(404);
      expect(response.status, `GET ${url}`).to.be.below(500);
    }
    const postOnly = urls.filter((url) => /\/api\/oauth\/(token|revoke|register|introspect)$|\/mcp$/.test(url));
    expect(postOnly.length).to.be.at.least(4);
    for (const url of postOnly) expect((await fetch(url)).status, url).to.equal(405);
  });

  it("is generated per site from that site's own settings", async () => {
    const [a, b] = await Promise.all([guideOf(server.siteA.origin), guideOf(server.siteB.origin)]);
    expect(b.text.startsWith(`# Agent guide: ${server.siteB.name}`)).to.equal(true);
    for (const url of urlsIn(b.text)) expect(new URL(url).origin).to.equal(server.siteB.origin);
    // The demo school enabled the MCP connections beta; site B did not.
    expect(a.text).to.include('enabled at this site');
    expect(b.text).to.include('not enabled at this site yet');
  });
}
