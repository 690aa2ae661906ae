import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { expect } from 'chai';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { walkAuthorizationPages } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { makeClient, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

/** The SDK's OAuth client provider as an MCP client implements it, keeping everything in memory. */
class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  private saved: OAuthTokens | undefined;
  private verifier = '';

  constructor(private readonly clientId: string) {}

  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'MCP test client', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation(): OAuthClientInformationMixed {
    return { client_id: this.clientId };
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/**
 * An MCP client that calls a member's tool without a token learns from the 401 challenge where to authorize, and gets
 * there through the SDK's own OAuth support (the `/mcp` step-up, RFC 9728 and the MCP authorization spec): resource metadata → authorization server
 * metadata → the authorization URL with PKCE and `resource` → the sign-in and consent pages → the token → the tool.
 */
describeEachDatabase('MCP: a member tool called without a token starts OAuth in the SDK client', (scratch) => {
  let server: TestServer;
  let origin: string;
  let app: TestClient;

  before(async () => {
    server = await startTestServer(scratch());
    origin = server.siteA.origin;
    await importSiteDocument(scratch().db, buildDemoDocument(origin, new Date()));
    app = await makeClient(scratch().db, server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'email', 'account:read'] });
  });
  after(() => server.stop());

  async function connect(provider: MemoryOAuthProvider): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client({ name: 'mcp-oauth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider });
    await client.connect(transport);
    return { client, transport };
  }

  it('follows the challenge to the authorization pages, and with the token the tool answers', async () => {
    const provider = new MemoryOAuthProvider(app.client.clientId);
    const first = await connect(provider);
    // Listing works anonymously; the member's tool is what asks for authorization.
    expect((await first.client.listTools()).tools.map((tool) => tool.name)).to.include('get_school_profile');
    const refused = await first.client.callTool({ name: 'list_my_courses', arguments: {} }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(UnauthorizedError);
    await first.client.close();

    const url = provider.authorizationUrl;
    if (!url) throw new Error('the SDK client was not sent to authorize');
    expect(`${url.origin}${url.pathname}`).to.equal(`${origin}/oauth/authorize`);
    expect(url.searchParams.get('resource')).to.equal(origin);
    expect(url.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(url.searchParams.get('scope')).to.equal('account:read');

    // The member signs in and approves in the pages, as a browser would.
    const back = await walkAuthorizationPages(url, { origin, email: DEMO_LOGINS.member.email, password: DEMO_LOGINS.member.password });
    const code = back.code;
    if (!code) throw new Error(`no code in ${back.location.href}`);

    const second = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider });
    await second.finishAuth(code);
    const client = new Client({ name: 'mcp-oauth-test', version: '1.0.0' });
    await client.connect(second);
    const result = await client.callTool({ name: 'list_my_courses', arguments: {} });
    expect(result.isError ?? false).to.equal(false);
    expect(JSON.stringify(result.structuredContent)).to.include('foundations-of-typography');
    await client.close();
  });
});
