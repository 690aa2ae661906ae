import type { LookupAddress } from 'node:dns';
import { expect } from 'chai';
import { createClient } from '../src/clients/clients.js';
import { isReadOrIdentityScope, scopesForAudience } from '../src/clients/scopes.js';
import { requireDate } from '../src/db/connection.js';
import { sha256Hex } from '../src/shared/random.js';
import { resolveClient } from '../src/oauth/client-resolution.js';
import { ANONYMOUS_LIMITS, TooManyRequestsError } from '../src/oauth/anonymous-limits.js';
import { InvalidScopeError } from '../src/oauth/errors.js';
import { guardedLookup, isPrivateAddress, literalAddressProblem } from '../src/oauth/metadata-document/address-policy.js';
import { freshnessLifetimeSeconds } from '../src/oauth/metadata-document/cache-policy.js';
import { MetadataDocumentRefusedError, EXTRA_CA_ENV, type RefusalReason } from '../src/oauth/metadata-document/index.js';
import { hostAccess } from '../src/oauth/metadata-document/host-policy.js';
import { resolveRequestedScopes } from '../src/oauth/scope-policy.js';
import { setMetadataDocumentHosts } from '../src/sites/registration-policy.js';
import { createSite, updateSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { json, useTrustedDocumentServer } from './support/test-ca.js';

async function refusal(promise: Promise<unknown>): Promise<MetadataDocumentRefusedError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MetadataDocumentRefusedError) return error;
    throw error;
  }
  throw new Error('expected the metadata document to be refused');
}

async function expectRefused(promise: Promise<unknown>, reason: RefusalReason, text?: string): Promise<void> {
  const error = await refusal(promise);
  expect(error.reason, error.message).to.equal(reason);
  expect(error.code).to.equal('invalid_client');
  if (text) expect(error.message).to.contain(text);
}

/** Everything runs against one local HTTPS document server whose throwaway CA is trusted via SCHOOLGATE_EXTRA_CA_FILE. */
describe('Client ID Metadata Documents over local HTTPS', () => {
  const trusted = useTrustedDocumentServer();

  describeEachDatabase('Client ID Metadata Documents (spec, Authentication 5)', (scratch) => {
    let site: Site;
    let prefix: string;
    const db = () => scratch().db;

    before(async () => {
      prefix = `/${scratch().kind}`;
      site = await createSite(db(), { origin: `https://cimd-${scratch().kind}.example`, name: 'Metadata School' });
    });

    /** Sets the site's registration policy and returns the site as a request would see it. */
    async function policy(hosts: string[], openRegistration = false): Promise<Site> {
      await setMetadataDocumentHosts(db(), site.id, hosts);
      site = await updateSite(db(), site.id, { openRegistration });
      return site;
    }

    /** Serves a valid document at `name` (overridable) and returns its client_id. */
    function serve(name: string, overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}, host = 'localhost'): string {
      const pathname = `${prefix}/${name}.json`;
      const clientId = trusted.server.url(pathname, host);
      trusted.server.route(pathname, json({ client_id: clientId, client_name: `Tool ${name}`, redirect_uris: [`https://${host}/oauth/callback`], token_endpoint_auth_method: 'none', ...overrides }, headers));
      return clientId;
    }
    const hits = (clientId: string) => trusted.server.requests(new URL(clientId).pathname).length;

    it('accepts a document from an allowlisted host, even on a private address, as an unreviewed public operator client', async () => {
      const clientId = serve('allowlisted', { scope: 'openid profile courses:read courses:write account:read other-server:scope', redirect_uris: ['https://localhost/oauth/callback', 'http://127.0.0.1:53682/callback'] });
      const resolved = await resolveClient(db(), await policy(['localhost']), clientId);
      expect(resolved?.secretHash).to.equal(null);
      expect(resolved?.client).to.deep.include({
        clientId,
        name: 'Tool allowlisted',
        audience: 'operator',
        confidential: false,
        tokenEndpointAuthMethod: 'none',
        kind: 'metadata_document',
        reviewed: false,
        redirectUris: ['https://localhost/oauth/callback', 'http://127.0.0.1:53682/callback'],
        // The document's scope ∩ operator scopes: account:read is member-only, other-server:scope unknown.
        scopes: ['openid', 'profile', 'courses:read', 'courses:write'],
      });
      const headers = trusted.server.requests(new URL(clientId).pathname)[0];
      expect(headers?.accept).to.equal('application/json');
    });

    it('accepts an allowlisted IP-literal host (127.0.0.1) too', async () => {
      const clientId = serve('literal', {}, {}, '127.0.0.1');
      const resolved = await resolveClient(db(), await policy(['127.0.0.1']), clientId);
      expect(resolved?.client.redirectUris).to.deep.equal(['https://127.0.0.1/oauth/callback']);
    });

    it('gives a document without scope every operator scope', async () => {
      const resolved = await resolveClient(db(), await policy(['localhost']), serve('no-scope'));
      expect(resolved?.client.scopes).to.deep.equal(scopesForAudience('operator'));
    });

    it('refuses a host that is not allowlisted without fetching anything', async () => {
      const clientId = serve('not-allowlisted');
      await expectRefused(resolveClient(db(), await policy(['tools.example']), clientId), 'host_not_permitted', 'not on its allowlist');
      expect(hits(clientId)).to.equal(0);
    });

    it('with open registration accepts any host, but still refuses private addresses that are not allowlisted', async () => {
      const byName = serve('open-name');
      const byLiteral = serve('open-literal', {}, {}, '127.0.0.1');
      const open = await policy([], true);
      await expectRefused(resolveClient(db(), open, byName), 'private_address', '127.0.0.1');
      await expectRefused(resolveClient(db(), open, byLiteral), 'private_address');
      expect(hits(byName) + hits(byLiteral)).to.equal(0);
      // Allowlisting the host lets the private address through.
      expect((await resolveClient(db(), await policy(['localhost'], true), byName))?.client.kind).to.equal('metadata_document');
    });

    it('refuses a document whose client_id is not its URL', async () => {
      const clientId = serve('mismatch');
      trusted.server.route(new URL(clientId).pathname, json({ client_id: `${clientId}?v=2`, client_name: 'Mismatch', redirect_uris: ['https://localhost/cb'] }));
      await expectRefused(resolveClient(db(), await policy(['localhost']), clientId), 'invalid_document', 'client_id must equal');
    });

    it('refuses redirect URIs on another host or over plain http, and accepts loopback ones', async () => {
      const site = await policy(['localhost']);
      await expectRefused(resolveClient(db(), site, serve('other-host', { redirect_uris: ['https://evil.example/callback'] })), 'invalid_document', 'https://evil.example/callback');
      await expectRefused(resolveClient(db(), site, serve('plain-http', { redirect_uris: ['http://localhost.example/cb'] })), 'invalid_document', 'redirect_uris[0]');
      await expectRefused(resolveClient(db(), site, serve('subdomain', { redirect_uris: ['https://app.localhost/cb'] })), 'invalid_document');
      const loopback = ['http://127.0.0.1/callback', 'http://localhost:8080/cb', 'http://[::1]:9000/cb'];
      const resolved = await resolveClient(db(), site, serve('loopback', { redirect_uris: loopback }));
      expect(resolved?.client.redirectUris).to.deep.equal(loopback);
    });

    it('refuses confidential documents and other malformed documents, listing every problem', async () => {
      const site = await policy(['localhost']);
      await expectRefused(resolveClient(db(), site, serve('secret-method', { token_endpoint_auth_method: 'client_secret_post' })), 'invalid_document', 'shared secret');
      await expectRefused(resolveClient(db(), site, serve('with-secret', { client_secret: 'x' })), 'invalid_document', 'client_secret');
      const many = await refusal(resolveClient(db(), site, serve('many', { client_name: '', redirect_uris: [], scope: 'account:read' })));
      expect(many.message).to.contain('client_name').and.contain('redirect_uris').and.contain('scope');
      const pathname = `${prefix}/not-json.json`;
      trusted.server.route(pathname, (_request, response) => void response.writeHead(200, { 'Content-Type': 'application/json' }).end('{nope'));
      await expectRefused(resolveClient(db(), site, trusted.server.url(pathname)), 'invalid_document', 'not valid JSON');
      const html = `${prefix}/html.json`;
      trusted.server.route(html, (_request, response) => void response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html></html>'));
      await expectRefused(resolveClient(db(), site, trusted.server.url(html)), 'invalid_document', 'application/json');
      await expectRefused(resolveClient(db(), site, trusted.server.url(`${prefix}/missing.json`)), 'http_status', 'HTTP 404');
    });

    it('refuses client_id URLs that are not in canonical form before any fetch', async () => {
      const site = await policy(['localhost']);
      const base = `https://localhost:${trusted.server.port}`;
      for (const clientId of [`${base}`, `${base}/`, `https://LOCALHOST:${trusted.server.port}/a.json`, `${base}/a/../b.json`, `${base}/a.json#x`, `https://user@localhost:${trusted.server.port}/a.json`]) {
        await expectRefused(resolveClient(db(), site, clientId), 'invalid_client_id');
      }
    });

    it('refuses an oversize document, announced or streamed', async () => {
      const site = await policy(['localhost']);
      const big = { client_name: 'Big', padding: 'x'.repeat(70 * 1024) };
      await expectRefused(resolveClient(db(), site, serve('oversize', big)), 'too_large', `${64 * 1024} bytes`);
      const pathname = `${prefix}/streamed.json`;
      const clientId = trusted.server.url(pathname);
      trusted.server.route(pathname, (_request, response) => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.write(`{"client_id":"${clientId}","padding":"`);
        const chunk = 'y'.repeat(8 * 1024);
        for (let i = 0; i < 10; i += 1) response.write(chunk);
        response.end('"}');
      });
      await expectRefused(resolveClient(db(), site, clientId), 'too_large');
      // The cap is an option: a small one refuses an ordinary document.
      await expectRefused(resolveClient(db(), site, serve('small-cap'), { maxBytes: 64 }), 'too_large');
    });

    it('times out a slow server', async () => {
      const pathname = `${prefix}/slow.json`;
      trusted.server.route(pathname, (_request, response) => {
        const timer = setTimeout(() => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'), 3000);
        response.on('close', () => clearTimeout(timer));
      });
      const started = Date.now();
      await expectRefused(resolveClient(db(), await policy(['localhost']), trusted.server.url(pathname), { timeoutMs: 300 }), 'timeout', '300 ms');
      expect(Date.now() - started).to.be.below(2000);
    });

    it('does not follow redirects, not even to the same host', async () => {
      const target = serve('redirect-target');
      const pathname = `${prefix}/redirect.json`;
      trusted.server.route(pathname, (_request, response) => void response.writeHead(302, { Location: target }).end());
      await expectRefused(resolveClient(db(), await policy(['localhost']), trusted.server.url(pathname)), 'redirect', 'HTTP 302');
      expect(hits(target)).to.equal(0);
    });

    it('refuses a server whose certificate it does not trust', async () => {
      const clientId = serve('untrusted');
      const site = await policy(['localhost']);
      delete process.env[EXTRA_CA_ENV];
      try {
        await expectRefused(resolveClient(db(), site, clientId), 'fetch_failed', 'could not be fetched');
      } finally {
        process.env[EXTRA_CA_ENV] = trusted.ca.caFile;
      }
    });

    it('caches by Cache-Control in the database, then revalidates with the ETag', async () => {
      const site = await policy(['localhost']);
      const clientId = serve('cached', {}, { 'Cache-Control': 'public, max-age=600', ETag: '"v1"' });
      const first = await resolveClient(db(), site, clientId);
      const second = await resolveClient(db(), site, clientId);
      expect(hits(clientId)).to.equal(1);
      expect(second?.client).to.deep.equal(first?.client);
      const row = await db()('oauth_clients').where({ site_id: site.id, client_id_hash: sha256Hex(clientId) }).first();
      expect(row.metadata_etag).to.equal('"v1"');
      const expiresIn = requireDate(row.metadata_expires_at).getTime() - Date.now();
      expect(expiresIn).to.be.within(590_000, 600_000);

      // Eleven minutes later the copy is stale: a conditional GET, answered 304, renews it without a new body.
      const pathname = new URL(clientId).pathname;
      trusted.server.route(pathname, (request, response) => {
        if (request.headers['if-none-match'] === '"v1"') response.writeHead(304, { 'Cache-Control': 'max-age=600', ETag: '"v1"' }).end();
        else json({ client_id: clientId, client_name: 'Changed', redirect_uris: ['https://localhost/cb'] })(request, response);
      });
      const later = new Date(Date.now() + 11 * 60 * 1000);
      const third = await resolveClient(db(), site, clientId, { now: () => later });
      expect(hits(clientId)).to.equal(2);
      expect(trusted.server.requests(pathname)[1]?.['if-none-match']).to.equal('"v1"');
      expect(third?.client.name).to.equal('Tool cached');
      await resolveClient(db(), site, clientId, { now: () => later });
      expect(hits(clientId)).to.equal(2);

      // A changed document (new ETag) replaces the registration once the copy is stale again.
      trusted.server.route(pathname, json({ client_id: clientId, client_name: 'Tool cached v2', redirect_uris: ['https://localhost/cb2'] }, { ETag: '"v2"' }));
      const evenLater = new Date(later.getTime() + 11 * 60 * 1000);
      const fourth = await resolveClient(db(), site, clientId, { now: () => evenLater });
      expect(fourth?.client).to.deep.include({ name: 'Tool cached v2', redirectUris: ['https://localhost/cb2'] });
    });

    it('never uses a cached client once its host is no longer permitted', async () => {
      const clientId = serve('revoked-host', {}, { 'Cache-Control': 'max-age=3600' });
      await resolveClient(db(), await policy(['localhost']), clientId);
      await expectRefused(resolveClient(db(), await policy([]), clientId), 'host_not_permitted');
    });

    it('keeps an operator review while the document is unchanged and drops it when the document widens', async () => {
      const site = await policy(['localhost']);
      const clientId = serve('reviewed', { scope: 'courses:read' });
      const first = await resolveClient(db(), site, clientId);
      await db()('oauth_clients').where({ id: first?.client.ref }).update({ reviewed: true });
      const later = new Date(Date.now() + 25 * 60 * 60 * 1000);
      expect((await resolveClient(db(), site, clientId, { now: () => later }))?.client.reviewed).to.equal(true);
      serve('reviewed', { scope: 'courses:read courses:write' });
      const widened = await resolveClient(db(), site, clientId, { now: () => new Date(later.getTime() + 25 * 60 * 60 * 1000) });
      expect(widened?.client).to.deep.include({ reviewed: false, scopes: ['courses:read', 'courses:write'] });
    });

    it('limits an unreviewed client to read and identity scopes through resolveRequestedScopes', async () => {
      const clientId = serve('unreviewed', { scope: 'openid profile email courses:read courses:write students:write orders:read' });
      const client = (await resolveClient(db(), await policy(['localhost']), clientId))?.client;
      if (!client) throw new Error('not resolved');
      expect(resolveRequestedScopes(client, 'openid courses:read orders:read')).to.deep.equal(['openid', 'courses:read', 'orders:read']);
      expect(resolveRequestedScopes(client, undefined)).to.deep.equal(['openid', 'profile', 'email', 'courses:read', 'orders:read']);
      expect(resolveRequestedScopes(client, undefined).every(isReadOrIdentityScope)).to.equal(true);
      expect(() => resolveRequestedScopes(client, 'courses:write')).to.throw(InvalidScopeError, 'until the operator reviews');
      expect(() => resolveRequestedScopes(client, 'account:read')).to.throw(InvalidScopeError, 'reserved to member clients');
      expect(() => resolveRequestedScopes({ ...client, reviewed: true }, 'courses:write')).not.to.throw();
    });

    it('resolves a registered client whose client_id happens to be an https URL without fetching', async () => {
      const clientId = trusted.server.url(`${prefix}/registered.json`);
      await createClient(db(), site.id, { clientId, name: 'Registered', audience: 'operator', confidential: true, scopes: ['courses:read'], redirectUris: ['https://registered.example/cb'] });
      const resolved = await resolveClient(db(), await policy([]), clientId);
      expect(resolved?.client.kind).to.equal('operator_created');
      expect(resolved?.secretHash).to.match(/^scrypt\$/);
      expect(hits(clientId)).to.equal(0);
    });

    it('still answers null for an unknown plain client_id', async () => {
      expect(await resolveClient(db(), site, 'sg_no_such_client')).to.equal(null);
    });

    it('remembers a refused document: named again within five minutes, it is refused without a fetch', async () => {
      const clientId = serve('refused-once', { redirect_uris: ['https://evil.example/callback'] });
      const open = await policy(['localhost']);
      await expectRefused(resolveClient(db(), open, clientId), 'invalid_document');
      serve('refused-once');
      await expectRefused(resolveClient(db(), open, clientId), 'recently_refused', 'not fetched again yet');
      expect(hits(clientId)).to.equal(1);
    });

    // Last of the file's fetches: it uses up this minute's fetches from the document server's host.
    it('caps the fetches from one host per minute, answering 429 with Retry-After and fetching nothing more', async () => {
      const open = await policy(['localhost']);
      const { limit } = ANONYMOUS_LIMITS.metadataFetchesPerHost;
      const clientIds = Array.from({ length: limit + 5 }, (_, index) => serve(`capped-${index}`));
      const outcomes: unknown[] = [];
      for (const clientId of clientIds) outcomes.push(await resolveClient(db(), open, clientId).catch((error: unknown) => error));
      const limited = outcomes.filter((outcome): outcome is TooManyRequestsError => outcome instanceof TooManyRequestsError);
      expect(limited.length).to.be.at.least(5);
      expect(limited[0]?.status).to.equal(429);
      // A sliding window: past the limit, the wait runs to the end of this window and into the next one, so up to two windows.
      expect(Number(limited[0]?.headers['Retry-After'])).to.be.within(1, 2 * ANONYMOUS_LIMITS.metadataFetchesPerHost.windowSeconds);
      const fetched = clientIds.filter((clientId) => hits(clientId) > 0).length;
      expect(fetched).to.equal(outcomes.length - limited.length);
    });
  });

});

describe('Client ID Metadata Documents: policy units', () => {
  it('classifies private, loopback, link-local, unique-local and reserved addresses', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '2001:db8::1', 'not-an-address']) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001::1']) {
      expect(isPrivateAddress(address), address).to.equal(false);
    }
  });

  it('judges a NAT64 Well-Known Prefix address (64:ff9b::/96, RFC 6052) by the IPv4 address it embeds', () => {
    for (const address of ['64:ff9b::7f00:1', '64:ff9b::127.0.0.1', '64:FF9B:0:0:0:0:7F00:1', '0064:ff9b:0000:0000:0000:0000:7f00:0001', '64:ff9b::a00:7', '64:ff9b::10.0.0.7', '64:ff9b::a9fe:a9fe', '64:ff9b::c0a8:101', '64:ff9b::', '64:ff9b::ffff:ffff', '64:ff9b:1::808:808']) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
    for (const address of ['64:ff9b::808:808', '64:ff9b::8.8.8.8', '64:ff9b::5db8:d822']) {
      expect(isPrivateAddress(address), address).to.equal(false);
    }
  });

  it('refuses a host name that resolves to a NAT64 address of a private IPv4 address, and an IP literal spelling one', async () => {
    const lookup = (address: string) =>
      new Promise<unknown>((resolve, reject) =>
        guardedLookup(false, (_host, _family, callback) => callback(null, [{ address, family: 6 }]))('docs.example', { all: false }, (error, found) => (error ? reject(error) : resolve(found))),
      );
    const refused = await lookup('64:ff9b::7f00:1').then(() => null, (failure: unknown) => failure);
    expect(refused).to.be.instanceOf(Error).with.property('message').that.contains('64:ff9b::7f00:1');
    expect(await lookup('64:ff9b::808:808')).to.equal('64:ff9b::808:808');
    expect(literalAddressProblem('[64:ff9b::7f00:1]', false)).to.be.instanceOf(Error);
    expect(literalAddressProblem('[64:ff9b::7f00:1]', true)).to.equal(null);
    expect(literalAddressProblem('[64:ff9b::808:808]', false)).to.equal(null);
  });

  it('refuses a host name when any of its addresses is private, unless private addresses are allowed', async () => {
    const resolver = (addresses: LookupAddress[]) => (_host: string, _family: number | undefined, callback: (error: Error | null, result: LookupAddress[]) => void) => callback(null, addresses);
    const lookup = (allow: boolean, addresses: LookupAddress[], all: boolean) =>
      new Promise<unknown>((resolve, reject) =>
        guardedLookup(allow, resolver(addresses))('docs.example', { all }, (error, address) => (error ? reject(error) : resolve(address))),
      );
    const publicOnly = [{ address: '93.184.216.34', family: 4 }];
    const mixed = [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }];
    expect(await lookup(false, publicOnly, false)).to.equal('93.184.216.34');
    expect(await lookup(false, publicOnly, true)).to.deep.equal(publicOnly);
    const error = await lookup(false, mixed, true).then(() => null, (failure: unknown) => failure);
    expect(error).to.be.instanceOf(Error).with.property('message').that.contains('10.0.0.7');
    expect(await lookup(true, mixed, true)).to.deep.equal(mixed);
  });

  it('permits allowlisted hosts always and any host under open registration (without the private-address pass)', () => {
    expect(hostAccess({ openRegistration: false }, ['tools.example'], 'tools.example')).to.deep.equal({ allowlisted: true });
    expect(hostAccess({ openRegistration: false }, ['tools.example'], 'other.example')).to.equal(null);
    expect(hostAccess({ openRegistration: true }, ['tools.example'], 'other.example')).to.deep.equal({ allowlisted: false });
    expect(hostAccess({ openRegistration: true }, ['tools.example'], 'TOOLS.example')).to.deep.equal({ allowlisted: true });
  });

  it('bounds the freshness lifetime from the caching headers', () => {
    expect(freshnessLifetimeSeconds({})).to.equal(300);
    expect(freshnessLifetimeSeconds({ 'cache-control': 'max-age=3600' })).to.equal(3600);
    expect(freshnessLifetimeSeconds({ 'cache-control': 'max-age=3600, s-maxage=1200' })).to.equal(1200);
    expect(freshnessLifetimeSeconds({ 'cache-control': 'max-age=3600', age: '600' })).to.equal(3000);
    expect(freshnessLifetimeSeconds({ 'cache-control': 'max-age=5' })).to.equal(60);
    expect(freshnessLifetimeSeconds({ 'cache-control': 'no-store' })).to.equal(60);
    expect(freshnessLifetimeSeconds({ 'cache-control': 'max-age=31536000' })).to.equal(86400);
    const date = new Date('2026-01-01T00:00:00Z');
    expect(freshnessLifetimeSeconds({ date: date.toUTCString(), expires: new Date(date.getTime() + 7200_000).toUTCString() })).to.equal(7200);
  });
});
