/**
 * npm run bench, OAuth: userinfo next to floor C and the refresh grant next to floor D, each running the product's
 * own statements (captured from the product, test/bench/floors/statements.ts) as prepared statements by hand. Each connection refreshes its own pair with the same
 * (old) refresh token, which the rotation rules allow while the successor is unused, so every request does the full
 * refresh work: a new successor that supersedes the previous one.
 */
import { expect } from 'chai';
import { newGrantId, insertPair } from '../../src/oauth/tokens/store.js';
import { makeClient, makeUser } from '../support/oauth-fixtures.js';
import { CONNECTIONS, type BenchContext, type Comparison } from './harness.js';

const SCOPES = ['openid', 'profile', 'email', 'account:read'] as const;

/** Token responses carry fresh tokens each time: they must agree in shape, not in value. */
function sameTokenResponseShape(product: unknown, floor: unknown): void {
  const shape = (body: unknown) =>
    Object.fromEntries(Object.entries(body as Record<string, unknown>).map(([key, value]) => [key, typeof value === 'string' && /^sg[ar]_/.test(value) ? value.slice(0, 4) : key === 'created_at' ? typeof value : value]));
  expect(shape(floor)).to.deep.equal(shape(product));
}

export async function oauthComparisons({ db, site, productUrl, floorUrl }: BenchContext): Promise<Comparison[]> {
  const member = await makeUser(db, site, ['student'], 'Bench Member');
  const app = await makeClient(db, site, { audience: 'member', confidential: false, scopes: [...SCOPES] });
  const issue = () => insertPair(db, { grantId: newGrantId(), siteId: site.id, clientRef: app.client.ref, userId: member.id, scopes: SCOPES, resource: site.origin, schoolId: site.id, authTime: new Date() });
  const userinfoToken = (await issue()).accessToken;
  // Separate pairs for the product and the floor, one per connection each, so neither rotates the other's.
  const productPairs = await Promise.all(Array.from({ length: CONNECTIONS }, issue));
  const floorPairs = await Promise.all(Array.from({ length: CONNECTIONS }, issue));
  const refreshTarget = (url: string, pairs: Awaited<ReturnType<typeof issue>>[]) => {
    let next = 0;
    const body = (refreshToken: string) => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: app.client.clientId }).toString();
    return {
      url,
      method: 'POST' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body(pairs[0]?.refreshToken ?? ''),
      setupClient: (client: { setBody(body: string): void }) => client.setBody(body(pairs[next++ % pairs.length]?.refreshToken ?? '')),
    };
  };
  const bearer = { authorization: `Bearer ${userinfoToken}` };
  return [
    { name: 'userinfo', floorName: 'C: the product\'s token read, prepared', product: { url: `${productUrl}/api/oauth/userinfo`, headers: bearer }, floor: { url: `${floorUrl}/floor/userinfo`, headers: bearer } },
    {
      name: 'refresh grant',
      floorName: 'D: the product\'s six statements, prepared',
      product: refreshTarget(`${productUrl}/api/oauth/token`, productPairs),
      floor: refreshTarget(`${floorUrl}/floor/token`, floorPairs),
      same: sameTokenResponseShape,
    },
  ];
}
