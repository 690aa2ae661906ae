import * as oauth from 'oauth4webapi';
import { createUser, type User } from '../../src/accounts/users.js';
import { grantRole, type Role } from '../../src/accounts/roles.js';
import { createClient, type OAuthClient } from '../../src/clients/clients.js';
import type { Audience } from '../../src/clients/scopes.js';
import type { Database } from '../../src/db/connection.js';
import { issueAuthorizationCode } from '../../src/oauth/codes.js';
import type { Site } from '../../src/sites/sites.js';
import { randomBytes } from 'node:crypto';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
export const PASSWORD = 'correct-horse-battery';

export interface TestClient {
  client: OAuthClient;
  secret: string | null;
  /** oauth4webapi's view of the client. */
  oauthClient: oauth.Client;
  auth: oauth.ClientAuth;
}

export async function makeUser(db: Database, site: Site, roles: Role[], name = 'Member'): Promise<User> {
  const user = await createUser(db, { email: `${name.toLowerCase().replace(/\W+/g, '.')}.${randomBytes(4).toString('hex')}@example.com`, name, password: PASSWORD, avatarUrl: 'https://cdn.example/avatar.png' });
  for (const role of roles) await grantRole(db, site.id, user.id, role);
  return user;
}

export async function makeClient(db: Database, site: Site, options: { audience: Audience; confidential: boolean; scopes: string[]; name?: string }): Promise<TestClient> {
  const { client, clientSecret } = await createClient(db, site.id, {
    name: options.name ?? `${options.confidential ? 'Confidential' : 'Public'} ${options.audience} app`,
    audience: options.audience,
    confidential: options.confidential,
    scopes: options.scopes,
    redirectUris: [REDIRECT_URI],
  });
  return {
    client,
    secret: clientSecret,
    oauthClient: { client_id: client.clientId, token_endpoint_auth_method: client.tokenEndpointAuthMethod },
    auth: clientSecret === null ? oauth.None() : oauth.ClientSecretPost(clientSecret),
  };
}

/** The server's own metadata, fetched and validated by oauth4webapi (RFC 8414). */
export async function discover(origin: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(origin);
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true });
  return oauth.processDiscoveryResponse(issuer, response);
}

export interface CodeGrant {
  code: string;
  verifier: string;
  nonce: string;
  state: string;
}

/**
 * A code as the consent page would issue it, written straight through the code store, so token-endpoint tests do not
 * depend on the pages (the pages have their own end-to-end tests).
 */
export async function issueCode(db: Database, site: Site, test: TestClient, user: User, scope: string, overrides: { resource?: string; nonce?: string } = {}): Promise<CodeGrant> {
  const verifier = oauth.generateRandomCodeVerifier();
  const nonce = overrides.nonce ?? oauth.generateRandomNonce();
  const code = await issueAuthorizationCode(db, {
    siteId: site.id,
    clientRef: test.client.ref,
    userId: user.id,
    redirectUri: REDIRECT_URI,
    scopes: scope.split(' ') as OAuthClient['scopes'],
    resource: overrides.resource ?? site.origin,
    codeChallenge: await oauth.calculatePKCECodeChallenge(verifier),
    nonce,
    authTime: new Date(),
  });
  return { code, verifier, nonce, state: oauth.generateRandomState() };
}

/** Exchanges a code the way a strict client does: validate the callback (iss, state), then the token request with resource. */
export async function exchangeCode(as: oauth.AuthorizationServer, test: TestClient, grant: CodeGrant, options: { resource?: string; DPoP?: oauth.DPoPHandle } = {}): Promise<Response> {
  const callback = new URL(REDIRECT_URI);
  callback.searchParams.set('code', grant.code);
  callback.searchParams.set('state', grant.state);
  callback.searchParams.set('iss', as.issuer);
  const params = oauth.validateAuthResponse(as, test.oauthClient, callback, grant.state);
  return oauth.authorizationCodeGrantRequest(as, test.oauthClient, test.auth, params, REDIRECT_URI, grant.verifier, {
    additionalParameters: { resource: options.resource ?? as.issuer },
    DPoP: options.DPoP,
    [oauth.allowInsecureRequests]: true,
  });
}

/** Form POST straight to an endpoint, for the requests a strict client library would refuse to send. */
export async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}
