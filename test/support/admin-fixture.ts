import type { Role } from '../../src/accounts/roles.js';
import type { User } from '../../src/accounts/users.js';
import type { Database } from '../../src/db/connection.js';
import { AdminApi, issueToken } from './admin.js';
import type { ScratchDatabase } from './databases.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * The set-up every admin test suite shares: a server on the suite's scratch database (two sites, A and B), and for
 * the admin API an operator at each site holding the suite's scopes, with an AdminApi client on their token. Call it
 * at the top of a `describeEachDatabase` body; its `before` runs ahead of the suite's own, so a suite's `before` can
 * seed data through `admin.api` or `admin.db`.
 *
 *   describeEachDatabase('admin API: courses', (scratch) => {
 *     const admin = useAdminApi(scratch, { scopes: ['courses:read', 'courses:write'] });
 *     it('…', async () => expect((await admin.api.call('listCourses')).status).to.equal(200));
 *   });
 */

export interface AdminServer {
  readonly server: TestServer;
  readonly db: Database;
  /** Site A's origin. */
  readonly origin: string;
}

export interface AdminFixture extends AdminServer {
  /** Site A's operator (a new user with the suite's roles) and the admin API on their token. */
  readonly operator: User;
  readonly api: AdminApi;
  /** Site B's operator, with the same scopes and roles: what one site must never see of another. */
  readonly operatorB: User;
  readonly apiB: AdminApi;
  /** The admin API of site A on another new operator's token, holding `scopes` only. */
  apiWithScopes(scopes: string[]): Promise<AdminApi>;
}

export interface AdminFixtureOptions {
  /** The scopes of both operators' tokens; the school scopes unless given. */
  scopes?: string[];
  /** The operators' roles at their site; operator unless given. */
  roles?: Role[];
  /** Whether site B gets an operator too (default true); suites about one site leave it out. */
  siteB?: boolean;
}

/** Declares the server's start and stop around the suite; no operator (the admin area's pages, the served contract). */
export function useAdminServer(scratch: () => ScratchDatabase): AdminServer {
  let server: TestServer | undefined;
  const started = (): TestServer => server ?? fail('the admin fixture is read before its before hook ran');
  before(async () => {
    server = await startTestServer(scratch());
  });
  after(() => server?.stop());
  return {
    get server() {
      return started();
    },
    get db() {
      return scratch().db;
    },
    get origin() {
      return started().siteA.origin;
    },
  };
}

/** The server, and an operator's admin API client at site A (and at site B unless `siteB: false`). */
export function useAdminApi(scratch: () => ScratchDatabase, options: AdminFixtureOptions = {}): AdminFixture {
  const base = useAdminServer(scratch);
  const tokenOptions = { ...(options.scopes ? { scopes: options.scopes } : {}), ...(options.roles ? { roles: options.roles } : {}) };
  let siteA: { operator: User; api: AdminApi } | undefined;
  let siteB: { operator: User; api: AdminApi } | undefined;
  before(async () => {
    const { server, db } = base;
    const issued = await issueToken(db, server.siteA, tokenOptions);
    siteA = { operator: issued.user, api: await AdminApi.connect(server.siteA.origin, issued.token) };
    if (options.siteB === false) return;
    const issuedB = await issueToken(db, server.siteB, tokenOptions);
    siteB = { operator: issuedB.user, api: await AdminApi.connect(server.siteB.origin, issuedB.token) };
  });
  const atA = () => siteA ?? fail('the admin fixture is read before its before hook ran');
  const atB = () => siteB ?? fail(options.siteB === false ? 'this suite has no operator at site B (useAdminApi with siteB: false)' : 'the admin fixture is read before its before hook ran');
  return {
    get server() {
      return base.server;
    },
    get db() {
      return base.db;
    },
    get origin() {
      return base.origin;
    },
    get operator() {
      return atA().operator;
    },
    get api() {
      return atA().api;
    },
    get operatorB() {
      return atB().operator;
    },
    get apiB() {
      return atB().api;
    },
    async apiWithScopes(scopes: string[]) {
      return atA().api.withToken((await issueToken(base.db, base.server.siteA, { scopes })).token);
    },
  };
}

function fail(message: string): never {
  throw new Error(message);
}
