/**
 * The one server per store the fuzz suite runs against, with enough data and credentials that generated requests
 * reach the code behind the authentication checks: the demo school imported into the site, member and operator
 * tokens (full and narrow scopes), public and confidential clients, a vendor platform, and "sacrificial" credentials
 * (a used code, a rotated refresh token, a revoked access token) for the replay paths.
 */
import { Writable } from 'node:stream';
import { grantRole } from '../../../src/accounts/roles.js';
import { findUserByEmail, type User } from '../../../src/accounts/users.js';
import { createClient, serviceClientScopes } from '../../../src/clients/clients.js';
import { scopesForAudience } from '../../../src/clients/scopes.js';
import { buildDemoDocument, DEMO_CLIENTS, DEMO_LOGINS } from '../../../src/demo/demo-school.js';
import { importSiteDocument } from '../../../src/import/import-site.js';
import { encodeNodeId } from '../../../src/member/ids.js';
import { createLogger } from '../../../src/shared/logger.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { createSite, type Site } from '../../../src/sites/sites.js';
import type { ScratchDatabase } from '../../support/databases.js';
import { issueToken } from '../../support/admin.js';
import { memberToken } from '../../support/member-api.js';
import { discover, exchangeCode, issueCode, makeClient, postForm, REDIRECT_URI, type TestClient } from '../../support/oauth-fixtures.js';
import { testConfig } from '../../support/server.js';
import type { Target } from './http-client.js';

/** What the server logged at level error for a request id: the server-side cause of a 5xx, for the report. */
export class ErrorLog {
  private readonly byRequest = new Map<string, string[]>();

  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        try {
          const entry = JSON.parse(line) as { requestId?: string; msg?: string; err?: { type?: string; message?: string; stack?: string } };
          const key = entry.requestId ?? '(no request id)';
          const text = entry.err ? `${entry.msg ?? ''}: ${entry.err.stack ?? `${entry.err.type ?? 'Error'}: ${entry.err.message ?? ''}`}` : (entry.msg ?? line);
          const list = this.byRequest.get(key) ?? [];
          list.push(text);
          this.byRequest.set(key, list);
        } catch {
          // Not JSON: ignore.
        }
      }
      done();
    },
  });

  take(requestId: string | null): string[] {
    if (requestId === null) return [];
    const lines = this.byRequest.get(requestId) ?? [];
    this.byRequest.delete(requestId);
    return lines;
  }

  /** Drops what no report asked for (bounded memory over a long run). */
  clear(): void {
    this.byRequest.clear();
  }
}

export interface FuzzFixtures {
  running: RunningServer;
  target: Target;
  site: Site;
  otherSite: Site;
  origin: string;
  siteHost: string;
  otherSiteHost: string;
  errorLog: ErrorLog;
  member: User;
  operator: User;
  /** User ids whose accounts the admin family must leave alone (the token holders). */
  protectedUserIds: number[];
  clients: {
    memberPublic: TestClient;
    memberConfidential: TestClient;
    operatorPublic: TestClient;
    operatorConfidential: TestClient;
  };
  /** A service client (client_credentials) with every admin scope. */
  service: { clientId: string; secret: string };
  tokens: {
    /** Member token with openid profile email account:read account:write. */
    memberFull: string;
    /** Member token with openid account:read only: mutations fail. */
    memberRead: string;
    /** Member token with identity scopes only (403 at GraphQL). */
    memberIdentity: string;
    /** Operator token with every operator scope. */
    operatorFull: string;
    /** Operator token with the read scopes only: admin writes fail with 403. */
    operatorRead: string;
    /** A member token of the other site (bound to its origin). */
    otherSiteMember: string;
    /** The service client's client_credentials token: no user, every admin scope. */
    service: string;
  };
  /** Credentials that are already spent: replaying them takes the reuse-detection paths. */
  spent: {
    usedCode: string;
    usedCodeVerifier: string;
    rotatedRefreshToken: string;
    revokedAccessToken: string;
  };
  /** Ids of the demo school's rows, to aim admin paths at existing resources. */
  knownIds: Record<string, number[]>;
  /** Client ids an admin path may name (not those of the fixtures' own clients). */
  knownClientIds: string[];
  /** Grant ids (token families): this site's, including one of a member the admin API may revoke, and the other site's. */
  knownGrantIds: string[];
  vendorNames: string[];
  /** Slugs of the demo school's courses and node ids of the member's notifications, for tool arguments. */
  courseSlugs: string[];
  notificationIds: string[];
}

async function idsOf(scratch: ScratchDatabase, table: string, siteId: number): Promise<number[]> {
  try {
    const rows = (await scratch.db(table).where({ site_id: siteId }).orderBy('id').limit(6).select('id')) as Array<{ id: number }>;
    return rows.map((row) => Number(row.id));
  } catch {
    const rows = (await scratch.db(table).orderBy('id').limit(6).select('id')) as Array<{ id: number }>;
    return rows.map((row) => Number(row.id));
  }
}

async function spentCredentials(scratch: ScratchDatabase, site: Site, app: TestClient, user: User): Promise<FuzzFixtures['spent']> {
  const as = await discover(site.origin);
  const grant = await issueCode(scratch.db, site, app, user, 'openid account:read');
  const first = (await (await exchangeCode(as, app, grant)).json()) as { access_token: string; refresh_token: string };
  const refreshed = await fetch(`${site.origin}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: app.client.clientId }),
  });
  const second = (await refreshed.json()) as { access_token?: string; error_description?: string };
  if (!second.access_token) throw new Error(`refresh failed in set-up: ${second.error_description ?? ''}`);
  // The refreshed pair's first use rotates out the first pair; then revoke the second one.
  await fetch(`${site.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${second.access_token}` } });
  await fetch(`${site.origin}/api/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: second.access_token, client_id: app.client.clientId }),
  });
  return { usedCode: grant.code, usedCodeVerifier: grant.verifier, rotatedRefreshToken: first.refresh_token, revokedAccessToken: second.access_token };
}

/** Starts the server on the scratch database and builds the fixtures; `stop` in the suite's after hook. */
/** A service client of the site, with its secret (RFC 6749 4.4). */
async function serviceClient(scratch: ScratchDatabase, site: Site): Promise<{ clientId: string; secret: string }> {
  const { client, clientSecret } = await createClient(scratch.db, site.id, { name: 'Fuzz service', audience: 'operator', confidential: true, kind: 'service', scopes: serviceClientScopes(), redirectUris: [] });
  if (clientSecret === null) throw new Error('a service client gets a secret');
  return { clientId: client.clientId, secret: clientSecret };
}

async function serviceToken(site: Site, service: { clientId: string; secret: string }): Promise<string> {
  const answer = await postForm(`${site.origin}/api/oauth/token`, { grant_type: 'client_credentials', client_id: service.clientId, client_secret: service.secret });
  if (typeof answer.body.access_token !== 'string') throw new Error(`no service token: ${JSON.stringify(answer.body)}`);
  return answer.body.access_token;
}

export async function startFuzzServer(scratch: ScratchDatabase): Promise<FuzzFixtures> {
  const errorLog = new ErrorLog();
  // testConfig lifts the per-address limits on anonymous traffic (every request comes from 127.0.0.1), so hostile
  // requests keep reaching the endpoints' own checks instead of a 429 after the first hundred failures. It also
  // runs no usage flush on a timer, which the row-count property around each request would take for its write.
  const config = testConfig({ variant: 'A', trustProxy: false, database: scratch.config, logLevel: 'error' });
  const running = await startServer(config, { db: scratch.db, logger: createLogger('error', errorLog.stream) });
  const port = Number(new URL(running.listeningOn).port);
  const site = await createSite(scratch.db, { origin: `http://localhost:${port}`, name: `Fuzz School ${port}`, subdomain: `fuzz-${port}` });
  const otherSite = await createSite(scratch.db, { origin: `http://127.0.0.1:${port}`, name: `Other School ${port}`, subdomain: `other-${port}` });
  await importSiteDocument(scratch.db, buildDemoDocument(site.origin, new Date()));

  const member = await findUserByEmail(scratch.db, DEMO_LOGINS.member.email);
  const operator = await findUserByEmail(scratch.db, DEMO_LOGINS.operator.email);
  if (!member || !operator) throw new Error('the demo school has no member or operator');
  const memberScopes = scopesForAudience('member');
  const operatorScopes = scopesForAudience('operator');
  const clients = {
    memberPublic: await makeClient(scratch.db, site, { audience: 'member', confidential: false, scopes: memberScopes }),
    memberConfidential: await makeClient(scratch.db, site, { audience: 'member', confidential: true, scopes: memberScopes }),
    operatorPublic: await makeClient(scratch.db, site, { audience: 'operator', confidential: false, scopes: operatorScopes }),
    operatorConfidential: await makeClient(scratch.db, site, { audience: 'operator', confidential: true, scopes: operatorScopes }),
  };
  const service = await serviceClient(scratch, site);
  const otherMember = await findUserByEmail(scratch.db, DEMO_LOGINS.staff.email);
  const tokens = {
    memberFull: await memberToken(scratch.db, site, member),
    memberRead: await memberToken(scratch.db, site, member, 'openid account:read'),
    memberIdentity: await memberToken(scratch.db, site, member, 'openid profile email'),
    operatorFull: (await issueToken(scratch.db, site, { user: operator, scopes: operatorScopes })).token,
    operatorRead: (await issueToken(scratch.db, site, { user: operator, scopes: operatorScopes.filter((scope) => scope.endsWith(':read') || scope === 'openid') })).token,
    otherSiteMember: '',
    service: await serviceToken(site, service),
  };
  if (otherMember) {
    await grantRole(scratch.db, otherSite.id, otherMember.id, 'student');
    tokens.otherSiteMember = await memberToken(scratch.db, otherSite, otherMember);
  }
  const spent = await spentCredentials(scratch, site, clients.memberPublic, member);
  // A connected app of a member that is not protected, so revokeMemberConnectedApp can succeed too.
  if (otherMember) await memberToken(scratch.db, site, otherMember, 'openid profile');
  const grantRows = (await scratch.db('token_pairs').whereIn('site_id', [site.id, otherSite.id]).distinct('grant_id')) as Array<{ grant_id: string }>;

  const knownIds: Record<string, number[]> = {};
  const tables: Record<string, string> = {
    courseId: 'courses',
    sectionId: 'course_sections',
    lectureId: 'lectures',
    lecturerId: 'lecturer_profiles',
    userId: 'users',
    enrollmentId: 'enrollments',
    planId: 'membership_plans',
    subscriptionId: 'subscriptions',
    orderId: 'payments',
    couponId: 'coupons',
    productId: 'digital_products',
    eventId: 'events',
    registrationId: 'event_registrations',
    serviceId: 'consulting_services',
    slotId: 'consulting_slots',
    meetingId: 'meetings',
    postId: 'posts',
    pageId: 'pages',
    commentId: 'comments',
    formId: 'forms',
    uploadId: 'storage_uploads',
  };
  const protectedUserIds = [member.id, operator.id];
  for (const [parameter, table] of Object.entries(tables)) {
    try {
      knownIds[parameter] = (await idsOf(scratch, table, site.id)).filter((id) => parameter !== 'userId' || !protectedUserIds.includes(id));
    } catch {
      knownIds[parameter] = [];
    }
  }
  const courseSlugs = ((await scratch.db('courses').where({ site_id: site.id }).select('slug')) as Array<{ slug: string }>).map((row) => row.slug);
  const notificationRows = (await scratch.db('notifications').where({ user_id: member.id }).orderBy('id').limit(5).select('id')) as Array<{ id: number }>;
  const notificationIds = notificationRows.map((row) => encodeNodeId('Notification', Number(row.id)));
  const siteHost = new URL(site.origin).host;
  return {
    running,
    target: { host: '127.0.0.1', port, siteHost },
    site,
    otherSite,
    origin: site.origin,
    siteHost,
    otherSiteHost: new URL(otherSite.origin).host,
    errorLog,
    member,
    operator,
    protectedUserIds,
    clients,
    service,
    tokens,
    spent,
    knownIds,
    knownGrantIds: grantRows.map((row) => row.grant_id),
    knownClientIds: [DEMO_CLIENTS.member.clientId, DEMO_CLIENTS.operator.clientId, 'vendor-claude', 'vendor-chatgpt', 'vendor-cursor'],
    vendorNames: ['Claude', 'ChatGPT', 'Cursor'],
    courseSlugs,
    notificationIds,
  };
}

export { REDIRECT_URI };
