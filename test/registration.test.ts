import { expect } from 'chai';
import { findClientWithSecret } from '../src/clients/clients.js';
import { buildDemoDocument } from '../src/demo/demo-school.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { addVendorPlatform, findVendorPlatform, listVendorPlatforms } from '../src/clients/vendor-platforms.js';
import { createSite, findSiteByOrigin } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { runCli } from './support/processes.js';
import { startTestServer, type TestServer } from './support/server.js';

interface ErrorBody {
  error: string;
  error_description: string;
}

async function register(origin: string, body: string, contentType = 'application/json'): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${origin}/api/oauth/register`, { method: 'POST', headers: { 'Content-Type': contentType }, body });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describeEachDatabase('vendor-platform registration (spec, Authentication 5; POST /api/oauth/register)', (scratch) => {
  let server: TestServer;
  const db = () => scratch().db;
  before(async () => {
    server = await startTestServer(scratch());
    await addVendorPlatform(db(), server.siteA.id, {
      clientName: 'ChatGPT',
      clientId: 'vendor-chatgpt',
      scopes: ['openid', 'profile', 'courses:read', 'orders:read'],
      redirectUris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
    });
  });
  after(async () => server.stop());

  it('answers a known client_name (trimmed, any case) with the platform’s public client, 201 and no-store', async () => {
    const { status, headers, body } = await register(server.siteA.origin, JSON.stringify({ client_name: '  chatgpt ', redirect_uris: ['https://ignored.example/cb'], token_endpoint_auth_method: 'client_secret_basic' }));
    expect(status).to.equal(201);
    expect(headers.get('cache-control')).to.equal('no-store');
    expect(body).to.deep.include({
      client_id: 'vendor-chatgpt',
      client_name: 'ChatGPT',
      redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'openid profile courses:read orders:read',
    });
    expect(body.client_id_issued_at).to.be.a('number');
    expect(body).not.to.have.property('client_secret');
  });

  it('accepts a form-encoded request too', async () => {
    const { status, body } = await register(server.siteA.origin, new URLSearchParams({ client_name: 'ChatGPT' }).toString(), 'application/x-www-form-urlencoded');
    expect(status).to.equal(201);
    expect(body.client_id).to.equal('vendor-chatgpt');
  });

  it('refuses an unknown client_name with invalid_client_metadata that says no body change helps and how to get a client', async () => {
    const { status, headers, body } = await register(server.siteA.origin, JSON.stringify({ client_name: 'My Agent', redirect_uris: ['https://agent.example/cb'] }));
    expect(status).to.equal(400);
    expect(headers.get('cache-control')).to.equal('no-store');
    expect(headers.get('content-type')).to.match(/^application\/json/);
    const error = body as unknown as ErrorBody;
    expect(error.error).to.equal('invalid_client_metadata');
    expect(error.error_description).to.contain('"My Agent" is not a known vendor platform').and.contain('no change to the request body will help').and.contain('site admin area').and.contain('OAuth applications');
  });

  it('refuses a missing, empty or non-string client_name the same way', async () => {
    for (const body of [JSON.stringify({ redirect_uris: ['https://a.example/cb'] }), JSON.stringify({ client_name: '   ' }), JSON.stringify({ client_name: ['ChatGPT'] })]) {
      const response = await register(server.siteA.origin, body);
      expect(response.status, body).to.equal(400);
      expect(response.body.error, body).to.equal('invalid_client_metadata');
    }
  });

  it('keeps each site’s allowlist to itself', async () => {
    const response = await register(server.siteB.origin, JSON.stringify({ client_name: 'ChatGPT' }));
    expect(response.status).to.equal(400);
    expect(response.body.error).to.equal('invalid_client_metadata');
  });

  it('answers malformed requests with invalid_request', async () => {
    const wrongType = await register(server.siteA.origin, 'client_name=ChatGPT', 'text/plain');
    expect(wrongType.status).to.equal(400);
    expect(wrongType.body.error).to.equal('invalid_request');
    const badJson = await register(server.siteA.origin, '{"client_name":');
    expect(badJson.status).to.equal(400);
    expect(badJson.body.error).to.equal('invalid_request');
    const array = await register(server.siteA.origin, '[{"client_name":"ChatGPT"}]');
    expect(array.status).to.equal(400);
    expect(array.body.error).to.equal('invalid_request');
    const duplicated = await register(server.siteA.origin, 'client_name=ChatGPT&client_name=Claude', 'application/x-www-form-urlencoded');
    expect(duplicated.status).to.equal(400);
    expect(duplicated.body.error).to.equal('invalid_request');
  });

  it('matches names case-insensitively when adding, so one platform cannot be listed twice', async () => {
    let conflict: unknown;
    await addVendorPlatform(db(), server.siteA.id, { clientName: 'CHATGPT', scopes: ['openid'], redirectUris: ['https://x.example/cb'] }).catch((error: unknown) => (conflict = error));
    expect(conflict).to.have.property('code', 'vendor_platform_exists');
    expect(await listVendorPlatforms(db(), server.siteA.id)).to.have.length(1);
  });

  it('seeds the demo school with Claude, ChatGPT and Cursor as public operator clients', async () => {
    const origin = `https://demo-registration-${scratch().kind}.example`;
    await importSiteDocument(db(), buildDemoDocument(origin, new Date()));
    const site = await findSiteByOrigin(db(), origin);
    if (!site) throw new Error('demo site not imported');
    const platforms = await listVendorPlatforms(db(), site.id);
    expect(platforms.map((platform) => [platform.clientName, platform.client.clientId])).to.deep.equal([
      ['Claude', 'vendor-claude'],
      ['ChatGPT', 'vendor-chatgpt'],
      ['Cursor', 'vendor-cursor'],
    ]);
    for (const platform of platforms) {
      expect(platform.client).to.include({ audience: 'operator', confidential: false, kind: 'vendor_platform', tokenEndpointAuthMethod: 'none' });
      expect(platform.client.scopes).not.to.include('account:read');
    }
    expect((await findVendorPlatform(db(), site.id, 'cursor'))?.client.redirectUris).to.include('https://www.cursor.com/agents/mcp/oauth/callback');
  });
});

describeEachDatabase('schoolgate vendor-platform add|list|remove', (scratch) => {
  const SITE = 'https://vendor-cli.example';
  const env = () => ({ DATABASE_URL: scratch().url });
  async function json<T>(args: string[]): Promise<T> {
    const result = await runCli(['--json', ...args], env());
    expect(result.code, result.stderr + result.stdout).to.equal(0);
    return JSON.parse(result.stdout) as T;
  }
  before(async () => {
    await createSite(scratch().db, { origin: SITE, name: 'Vendor CLI School' });
  });

  it('adds a platform as a public operator client and lists it', async () => {
    const added = await json<Record<string, unknown>>([
      'vendor-platform', 'add', '--site', SITE, '--client-name', 'Cursor', '--client-id', 'vendor-cursor',
      '--redirect-uri', 'https://www.cursor.com/agents/mcp/oauth/callback', '--scope', 'openid courses:read', '--scope', 'pages:read',
    ]);
    expect(added).to.deep.include({ clientName: 'Cursor', clientId: 'vendor-cursor', audience: 'operator', tokenEndpointAuthMethod: 'none', scopes: ['openid', 'courses:read', 'pages:read'] });
    const site = await findSiteByOrigin(scratch().db, SITE);
    const stored = await findClientWithSecret(scratch().db, site!.id, 'vendor-cursor');
    expect(stored?.secretHash).to.equal(null);
    expect(stored?.client).to.include({ kind: 'vendor_platform', confidential: false });
    const listed = await json<Array<{ clientName: string }>>(['vendor-platform', 'list', '--site', SITE]);
    expect(listed.map((platform) => platform.clientName)).to.deep.equal(['Cursor']);
    const text = await runCli(['vendor-platform', 'list', '--site', SITE], env());
    expect(text.stdout).to.match(/^CLIENT_NAME\s+CLIENT_ID/).and.contain('vendor-cursor');
  });

  it('refuses member scopes, a duplicate name and bad redirect URIs with exit 1', async () => {
    const member = await runCli(['--json', 'vendor-platform', 'add', '--site', SITE, '--client-name', 'Member Bot', '--redirect-uri', 'https://bot.example/cb', '--scope', 'account:read'], env());
    expect(member.code).to.equal(1);
    expect(JSON.parse(member.stdout)).to.include({ error: 'invalid_client_metadata' });
    const duplicate = await runCli(['--json', 'vendor-platform', 'add', '--site', SITE, '--client-name', ' cursor', '--redirect-uri', 'https://c.example/cb', '--scope', 'openid'], env());
    expect(duplicate.code).to.equal(1);
    expect(JSON.parse(duplicate.stdout)).to.include({ error: 'vendor_platform_exists' });
    const redirect = await runCli(['vendor-platform', 'add', '--site', SITE, '--client-name', 'Plain', '--redirect-uri', 'http://plain.example/cb', '--scope', 'openid'], env());
    expect(redirect.code).to.equal(1);
    expect(redirect.stderr).to.contain('http is allowed only for loopback hosts');
    const listed = await json<unknown[]>(['vendor-platform', 'list', '--site', SITE]);
    expect(listed).to.have.length(1);
  });

  it('removes a platform, keeping its client unless --delete-client', async () => {
    await json(['vendor-platform', 'add', '--site', SITE, '--client-name', 'ChatGPT', '--client-id', 'vendor-chatgpt', '--redirect-uri', 'https://chatgpt.com/connector_platform_oauth_redirect', '--scope', 'openid']);
    const site = (await findSiteByOrigin(scratch().db, SITE))!;
    const kept = await json<{ removed: boolean; clientDeleted: boolean }>(['vendor-platform', 'remove', '--site', SITE, '--client-name', 'chatgpt']);
    expect(kept).to.include({ removed: true, clientDeleted: false });
    expect(await findClientWithSecret(scratch().db, site.id, 'vendor-chatgpt')).not.to.equal(null);
    const deleted = await json<{ clientDeleted: boolean }>(['vendor-platform', 'remove', '--site', SITE, '--client-name', 'Cursor', '--delete-client']);
    expect(deleted.clientDeleted).to.equal(true);
    expect(await findClientWithSecret(scratch().db, site.id, 'vendor-cursor')).to.equal(null);
    const missing = await runCli(['--json', 'vendor-platform', 'remove', '--site', SITE, '--client-name', 'Cursor'], env());
    expect(missing.code).to.equal(1);
    expect(JSON.parse(missing.stdout)).to.include({ error: 'vendor_platform_not_found' });
    expect(await json<unknown[]>(['vendor-platform', 'list', '--site', SITE])).to.deep.equal([]);
  });
});
