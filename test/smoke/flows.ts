import { DEMO_CLIENTS, DEMO_LOGINS } from '../../src/demo/demo-school.js';
import { OAUTH_PATHS } from '../../src/oauth/endpoints.js';
import { variantProfile } from '../../src/variant.js';
import { authorizeViaPages, createPkcePair } from '../support/authorize-flow.js';
import { withMcpClient } from '../support/mcp-clients.js';

/** The demo clients' redirect URI; the pages send the browser there and nothing needs to answer it. */
const REDIRECT_URI = 'http://localhost:8765/callback';

export interface Flow {
  name: string;
  run(origin: string): Promise<string>;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

async function json<T>(response: Response, what: string): Promise<T> {
  const text = await response.text();
  check(response.ok, `${what}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

interface Tokens {
  access_token: string;
  refresh_token?: string;
}

/** The authorization code flow through the sign-in and consent pages, as a browser and a client go through it. */
async function signIn(origin: string, who: 'member' | 'operator'): Promise<Tokens> {
  const client = DEMO_CLIENTS[who];
  const login = DEMO_LOGINS[who];
  const { verifier, challenge } = createPkcePair();
  const { code } = await authorizeViaPages({ origin, clientId: client.clientId, redirectUri: REDIRECT_URI, scope: client.scopes.join(' '), email: login.email, password: login.password, codeChallenge: challenge, state: 'smoke' });
  const form: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.clientId, resource: origin };
  if ('clientSecret' in client) form.client_secret = client.clientSecret;
  return json<Tokens>(await fetch(`${origin}${OAUTH_PATHS.token}`, { method: 'POST', body: new URLSearchParams(form) }), `${who} code exchange`);
}

let memberToken: Promise<Tokens> | undefined;

/** One flow per interface, against the demo school (docs/demo.md) a freshly started server seeded. */
export const FLOWS: Flow[] = [
  {
    name: 'OAuth: discovery, code flow, refresh, userinfo',
    async run(origin) {
      const metadata = await json<{ issuer: string; token_endpoint: string; jwks_uri: string; userinfo_endpoint: string }>(await fetch(`${origin}/.well-known/openid-configuration`), 'discovery');
      check(metadata.issuer === origin, `issuer ${metadata.issuer}, expected ${origin}`);
      const jwks = await json<{ keys: unknown[] }>(await fetch(metadata.jwks_uri), 'JWKS');
      check(jwks.keys.length > 0, 'the JWKS has no key');
      memberToken = signIn(origin, 'member');
      const first = await memberToken;
      check(typeof first.refresh_token === 'string', 'no refresh token');
      const refreshed = await json<Tokens>(
        await fetch(metadata.token_endpoint, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '', client_id: DEMO_CLIENTS.member.clientId, resource: origin }) }),
        'refresh',
      );
      memberToken = Promise.resolve(refreshed);
      const userinfo = await json<{ email?: string }>(await fetch(metadata.userinfo_endpoint, { headers: { authorization: `Bearer ${refreshed.access_token}` } }), 'userinfo');
      check(userinfo.email === DEMO_LOGINS.member.email, `userinfo email ${userinfo.email}`);
      return userinfo.email ?? '';
    },
  },
  {
    name: 'member GraphQL: viewer',
    async run(origin) {
      const { access_token } = await (memberToken ?? signIn(origin, 'member'));
      const answer = await json<{ data?: { viewer?: { name?: string } }; errors?: unknown }>(
        await fetch(`${origin}${variantProfile('A').memberGraphql.path}`, { method: 'POST', headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ viewer { name } }' }) }),
        'member GraphQL',
      );
      check(answer.data?.viewer?.name === DEMO_LOGINS.member.name, `viewer ${JSON.stringify(answer)}`);
      return answer.data?.viewer?.name ?? '';
    },
  },
  {
    name: 'MCP: initialize and list tools as the member',
    async run(origin) {
      const { access_token } = await (memberToken ?? signIn(origin, 'member'));
      const tools = await withMcpClient(origin, '2025-11-25', access_token, async (client) => (await client.listTools()).tools);
      check(tools.length > 0, 'no tools');
      return `${tools.length} tools`;
    },
  },
  {
    name: 'admin API: operator sign-in, GET /school',
    async run(origin) {
      const { access_token } = await signIn(origin, 'operator');
      const school = await json<{ name?: string }>(await fetch(`${origin}/api/admin/v1/school`, { headers: { authorization: `Bearer ${access_token}` } }), 'admin API');
      check(typeof school.name === 'string' && school.name !== '', `school ${JSON.stringify(school)}`);
      return school.name ?? '';
    },
  },
];
