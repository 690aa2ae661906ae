import { DEMO_CLIENTS, DEMO_LOGINS } from '../../src/demo/demo-school.js';
import { authorizeViaPages, createPkcePair } from '../support/authorize-flow.js';

/** The demo member app's own redirect URI; the pages send the browser there and nothing needs to answer it. */
const REDIRECT_URI = 'http://localhost:8765/callback';

/**
 * An access token for Mia, the demo member, obtained as any client of the school gets one: the authorization request
 * with PKCE and `resource` = the origin, our sign-in and consent pages, then the token endpoint. Every scope the demo
 * member app may ask for is asked, so the member's tools, resources and prompts are all reachable with it.
 */
export async function memberAccessToken(origin: string): Promise<string> {
  const { verifier, challenge } = createPkcePair();
  const { code } = await authorizeViaPages({
    origin,
    clientId: DEMO_CLIENTS.member.clientId,
    redirectUri: REDIRECT_URI,
    scope: DEMO_CLIENTS.member.scopes.join(' '),
    email: DEMO_LOGINS.member.email,
    password: DEMO_LOGINS.member.password,
    codeChallenge: challenge,
    state: 'conformance',
  });
  const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as { token_endpoint?: string };
  if (!metadata.token_endpoint) throw new Error(`${origin}/.well-known/oauth-authorization-server names no token_endpoint`);
  const response = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: DEMO_CLIENTS.member.clientId, resource: origin }),
  });
  const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new Error(`the token endpoint refused Mia's code: HTTP ${response.status} ${body.error ?? ''} ${body.error_description ?? ''}`.trim());
  }
  return body.access_token;
}
