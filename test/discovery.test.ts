import http from 'node:http';
import { expect } from 'chai';
import { createRemoteJWKSet, jwtVerify, SignJWT, importJWK, decodeProtectedHeader } from 'jose';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { ALL_SCOPES } from '../src/clients/scopes.js';
import { activeSigningKey } from '../src/keys/signing-keys.js';
import { describeEachDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/server.js';

const WELL_KNOWN = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/jwks.json'];

/** A raw request with any Host header, to reach an origin that has no site. */
function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path, headers: { Host: host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

const insecure = { [oauth.allowInsecureRequests]: true } as const;

describeEachDatabase('discovery documents (spec, Endpoints; RFC 8414, RFC 9728, OIDC Discovery)', (scratch) => {
  let variantA: TestServer;
  let variantB: TestServer;
  before(async () => {
    variantA = await startTestServer(scratch(), { variant: 'A' });
    variantB = await startTestServer(scratch(), { variant: 'B' });
  });
  after(async () => {
    await variantA.stop();
    await variantB.stop();
  });
  const origins = () => [variantA.siteA.origin, variantA.siteB.origin];

  it('passes oauth4webapi discovery on both sites, each origin its own issuer', async () => {
    for (const origin of origins()) {
      const issuer = new URL(origin);
      const metadata = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
      expect(metadata.issuer).to.equal(origin);
      expect(metadata.authorization_endpoint).to.equal(`${origin}/oauth/authorize`);
      const oidc = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
      expect(oidc.issuer).to.equal(origin);
    }
    // The other site's issuer is refused by a strict client.
    const [alpha, beta] = origins() as [string, string];
    const response = await oauth.discoveryRequest(new URL(alpha), { algorithm: 'oauth2', ...insecure });
    let mismatch: unknown;
    await oauth.processDiscoveryResponse(new URL(beta), response).catch((error: unknown) => (mismatch = error));
    expect(mismatch).to.be.instanceOf(oauth.OperationProcessingError);
  });

  it("passes openid-client's discovery()", async () => {
    for (const origin of origins()) {
      const config = await openid.discovery(new URL(origin), 'any-client', undefined, undefined, { execute: [openid.allowInsecureRequests] });
      const metadata = config.serverMetadata();
      expect(metadata.issuer).to.equal(origin);
      expect(metadata.supportsPKCE('S256')).to.equal(true);
      expect(metadata.jwks_uri).to.equal(`${origin}/.well-known/jwks.json`);
    }
  });

  it('lists every endpoint, grant, method and scope in the authorization server metadata', async () => {
    const origin = variantA.siteA.origin;
    const response = await fetch(`${origin}/.well-known/oauth-authorization-server`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(response.headers.get('cache-control')).to.equal('public, max-age=300');
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).to.deep.include({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/api/oauth/token`,
      userinfo_endpoint: `${origin}/api/oauth/userinfo`,
      revocation_endpoint: `${origin}/api/oauth/revoke`,
      registration_endpoint: `${origin}/api/oauth/register`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      scopes_supported: ALL_SCOPES,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA', 'Ed25519'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'],
      revocation_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA', 'Ed25519'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      id_token_signing_alg_values_supported: ['ES256'],
      subject_types_supported: ['public'],
      service_documentation: `${origin}/auth.md`,
    });
    expect(metadata.claims_supported).to.include.members(['sub', 'email', 'name', 'picture', 'org_id', 'roles', 'nonce']);
    expect(metadata).not.to.have.property('introspection_endpoint');
    expect(metadata).not.to.have.property('introspection_endpoint_auth_methods_supported');
    expect(metadata).not.to.have.property('introspection_endpoint_auth_signing_alg_values_supported');
    expect(ALL_SCOPES).to.have.length(38);
  });

  it('advertises introspection in variant B only, and picture only in variant A', async () => {
    const origin = variantB.siteA.origin;
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata).to.deep.include({
      issuer: origin,
      introspection_endpoint: `${origin}/api/oauth/introspect`,
      introspection_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'],
      introspection_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA', 'Ed25519'],
    });
    expect(metadata.claims_supported).not.to.include('picture');
    const config = await openid.discovery(new URL(origin), 'any-client', undefined, undefined, { execute: [openid.allowInsecureRequests] });
    expect(config.serverMetadata().introspection_endpoint).to.equal(`${origin}/api/oauth/introspect`);
  });

  it('serves the OpenID configuration with the OIDC-required fields and the same data', async () => {
    for (const origin of origins()) {
      const oidc = (await (await fetch(`${origin}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
      const rfc8414 = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      for (const field of ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri', 'response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']) {
        expect(oidc, field).to.have.property(field);
      }
      expect(oidc).to.deep.include(rfc8414);
      expect(oidc).to.deep.include({ request_uri_parameter_supported: false, request_parameter_supported: false, claims_parameter_supported: false });
    }
  });

  it('serves RFC 9728 protected resource metadata whose resource is the origin', async () => {
    for (const origin of origins()) {
      const resource = new URL(origin);
      const metadata = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
      expect(metadata).to.deep.equal({
        resource: origin,
        authorization_servers: [origin],
        scopes_supported: ALL_SCOPES,
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA', 'Ed25519'],
        dpop_bound_access_tokens_required: false,
        resource_name: origin === variantA.siteA.origin ? variantA.siteA.name : variantA.siteB.name,
        resource_documentation: `${origin}/auth.md`,
      });
    }
  });

  it('publishes a JWKS that verifies tokens signed with the active key, one key set per site', async () => {
    const kids: string[] = [];
    for (const site of [variantA.siteA, variantA.siteB]) {
      const response = await fetch(`${site.origin}/.well-known/jwks.json`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^application\/jwk-set\+json/);
      const jwks = (await response.json()) as { keys: Array<Record<string, unknown>> };
      expect(jwks.keys).to.have.length(1);
      expect(jwks.keys[0]).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(jwks.keys[0]).not.to.have.property('d');

      const key = await activeSigningKey(scratch().db, site.id);
      const token = await new SignJWT({ nonce: 'n-1' })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid })
        .setIssuer(site.origin)
        .setAudience('client-1')
        .setExpirationTime('10m')
        .sign(await importJWK(key.privateJwk, 'ES256'));
      const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${site.origin}/.well-known/jwks.json`)), { issuer: site.origin, audience: 'client-1' });
      expect(payload.nonce).to.equal('n-1');
      kids.push(decodeProtectedHeader(token).kid ?? '');
    }
    expect(kids[0]).not.to.equal(kids[1]);
  });

  it("creates a site's first signing key on demand, once", async () => {
    expect(await scratch().db('signing_keys').where({ site_id: variantB.siteB.id })).to.have.length(0);
    const first = (await (await fetch(`${variantB.siteB.origin}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
    const second = (await (await fetch(`${variantB.siteB.origin}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
    expect(first.keys).to.have.length(1);
    expect(second.keys.map((key) => key.kid)).to.deep.equal(first.keys.map((key) => key.kid));
    const rows = await scratch().db('signing_keys').where({ site_id: variantB.siteB.id });
    expect(rows).to.have.length(1);
  });

  it('lets browser clients on other origins read every document, preflight included', async () => {
    for (const path of WELL_KNOWN) {
      const response = await fetch(`${variantA.siteA.origin}${path}`, { headers: { Origin: 'https://inspector.example' } });
      expect(response.headers.get('access-control-allow-origin'), path).to.equal('*');
      const preflight = await fetch(`${variantA.siteA.origin}${path}`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://inspector.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'mcp-protocol-version' },
      });
      expect(preflight.status, path).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('*');
      expect(preflight.headers.get('access-control-allow-headers')).to.equal('mcp-protocol-version');
    }
  });

  it('answers an unknown origin with 404 site_not_found on every discovery path', async () => {
    for (const path of WELL_KNOWN) {
      const response = await get(variantA.port, path, `unknown.example:${variantA.port}`);
      expect(response.status, path).to.equal(404);
      expect(JSON.parse(response.body)).to.include({ error: 'site_not_found' });
    }
  });
});
