/**
 * The product's statements for the floors, captured in the capturing process: a product server of its own (the real
 * application, not logging) over the same database serves the site of the product under test, and is asked for a
 * userinfo, two refreshes and the syllabus of a member with the bench's 20 courses (test/bench/syllabus-data.ts).
 */
import http from 'node:http';
import type { Knex } from 'knex';
import { findUserByEmail } from '../../../src/accounts/users.js';
import type { Variant } from '../../../src/config/config.js';
import type { DatabaseConfig } from '../../../src/config/database-url.js';
import { importSiteDocument } from '../../../src/import/import-site.js';
import { newGrantId, insertPair } from '../../../src/oauth/tokens/store.js';
import { startServer } from '../../../src/server.js';
import { createLogger } from '../../../src/shared/logger.js';
import type { Site } from '../../../src/sites/sites.js';
import { graphqlPath, memberToken } from '../../support/member-api.js';
import { makeClient, makeUser } from '../../support/oauth-fixtures.js';
import { testConfig } from '../../support/server.js';
import { SYLLABUS_QUERY, syllabusDocument, type BenchMember } from '../syllabus-data.js';
import { captureStatements, type CaptureRequests, type ProductRequest, type StatementBook } from './statements.js';

const SCOPES = ['openid', 'profile', 'email', 'account:read'] as const;

/** The capture's own member, with the bench member's 20 courses (so the same statements), apart from the bench's. */
const CAPTURE_MEMBER: BenchMember = { prefix: 'floor-capture-', email: 'floor.capture.member@example.com', name: 'Floor Capture Member' };

/** A userinfo token, a fresh refresh token and a syllabus token at `site` (new ones on each call), with the requests that present them. */
export async function captureRequests(db: Knex, site: Site, variant: Variant): Promise<CaptureRequests> {
  const owner = await makeUser(db, site, ['student'], 'Floor Capture Owner');
  const app = await makeClient(db, site, { audience: 'member', confidential: false, scopes: [...SCOPES] });
  const issue = () => insertPair(db, { grantId: newGrantId(), siteId: site.id, clientRef: app.client.ref, userId: owner.id, scopes: SCOPES, resource: site.origin, schoolId: site.id, authTime: new Date() });
  const [userinfo, refresh] = [await issue(), await issue()];
  if (!(await findUserByEmail(db, CAPTURE_MEMBER.email))) await importSiteDocument(db, syllabusDocument(site.origin, new Date(), CAPTURE_MEMBER));
  const member = await findUserByEmail(db, CAPTURE_MEMBER.email);
  if (!member) throw new Error('the capture member was not imported');
  const token = await memberToken(db, site, member, 'account:read');
  return {
    userinfo: { path: '/api/oauth/userinfo', headers: { authorization: `Bearer ${userinfo.accessToken}` } },
    refresh: {
      path: '/api/oauth/token',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh.refreshToken ?? '', client_id: app.client.clientId }).toString(),
    },
    syllabus: { path: graphqlPath(variant), method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query: SYLLABUS_QUERY }) },
  };
}

/** Sends a request to a server at `port` as if to `origin` (its Host header), answering the status. */
function sendAs(port: number, origin: string) {
  return (request: ProductRequest) =>
    new Promise<number>((resolve, reject) => {
      const outgoing = http.request({ host: '127.0.0.1', port, path: request.path, method: request.method ?? 'GET', headers: { ...request.headers, host: new URL(origin).host } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
}

/** The product's statements for `site`, from a product server of this process over `db` (whose queries it listens to). */
export async function captureFromProduct(db: Knex, database: DatabaseConfig, site: Site, variant: Variant): Promise<StatementBook> {
  const requests = await captureRequests(db, site, variant);
  const config = testConfig({ variant, database });
  const running = await startServer(config, { db, logger: createLogger('silent') });
  try {
    return await captureStatements(db, site.origin, requests, sendAs(Number(new URL(running.listeningOn).port), site.origin));
  } finally {
    await running.stop(0);
  }
}
