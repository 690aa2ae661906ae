import Router from '@koa/router';
import { findUserByEmail, getUserAt } from '../../accounts/users.js';
import { requireApplication } from '../../clients/applications.js';
import { disconnectApp, listClientGrants, listMemberConnectedApps, type ConnectedAppsPage } from '../../clients/connected-apps.js';
import type { Database } from '../../db/connection.js';
import type { ListQuery } from '../../db/keyset-pagination.js';
import type { SiteState } from '../../http/state.js';
import { findMember, type Member } from '../../people/members.js';
import type { Services } from '../../services.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { AdminPageError, operatorPage, redirectWithinAdmin, sendAdminHtml, type AdminPageContext } from './area.js';
import { ADMIN_PATHS, applicationGrantsPath, memberGrantsPath } from './paths.js';
import { applicationGrantsPage, memberGrantsPage, memberLookupPage } from './views/grants.js';

/**
 * The admin area's connected apps (docs/connected-apps.md), through the same domain functions as the admin API
 * (src/clients/connected-apps.ts): Developers > OAuth applications > one application > Connected members (every
 * member's live grant of the application), and Members' connected apps (one member's live grants, found by email),
 * each grant with a Revoke button.
 */

const PAGE_SIZE = 50;

function requireDevelopersArea(page: AdminPageContext): void {
  if (!page.site.mcpConnectionsEnabled) {
    throw new AdminPageError(404, 'mcp_connections_disabled', 'Developers is not available', 'OAuth applications appear once the MCP connections beta is on. Turn it on in Settings.');
  }
}

/** One keyset page from the `after` link; a stale or mangled "Next page" link starts again from the first page. */
async function pageFrom(page: AdminPageContext, list: (query: ListQuery) => Promise<ConnectedAppsPage>): Promise<ConnectedAppsPage> {
  const cursor = typeof page.ctx.query.after === 'string' ? page.ctx.query.after : undefined;
  return list({ limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) }).catch((error: unknown) => {
    if (!(error instanceof ValidationError && error.code === 'invalid_cursor')) throw error;
    return list({ limit: PAGE_SIZE });
  });
}

/** The member of this site with that email; null for an account of another site only, or no account. */
async function memberByEmail(db: Database, siteId: number, email: string): Promise<Member | null> {
  const account = await findUserByEmail(db, email).catch((error: unknown) => {
    // A malformed address is no member's.
    if (error instanceof ValidationError) return null;
    throw error;
  });
  return account ? findMember(db, siteId, account.id) : null;
}

/** The member of the path's user id: an account that holds no role at this site (whatever it holds elsewhere) is a 404. */
async function requirePathMember(page: AdminPageContext): Promise<Member> {
  const raw = page.ctx.params.userId ?? '';
  const userId = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : NaN;
  const member = Number.isSafeInteger(userId) ? await findMember(page.db, page.site.id, userId) : null;
  if (!member) throw new NotFoundError(`No member of ${page.site.name} has the id ${raw}.`, 'member_not_found');
  return member;
}

export function adminGrantRoutes(services: Services): Router<SiteState> {
  const { db } = services;
  const router = new Router<SiteState>();

  router.get(
    `${ADMIN_PATHS.applications}/:clientId/grants`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const application = await requireApplication(db, page.site.id, page.ctx.params.clientId ?? '');
      const list = await pageFrom(page, (query) => listClientGrants(db, page.site.id, application.client.ref, query));
      const memberNames = new Map<number, string>();
      for (const userId of new Set(list.apps.map((grant) => grant.userId))) {
        const user = await getUserAt(db, page.site.id, userId).catch(() => null);
        if (user) memberNames.set(userId, `${user.name} (${user.email})`);
      }
      const path = applicationGrantsPath(application.client.clientId);
      const nextPage = list.nextCursor === null ? null : `${path}?after=${encodeURIComponent(list.nextCursor)}`;
      const ok = page.ctx.query.revoked === '1' ? "The member's grant was revoked: every token of it has stopped working." : null;
      sendAdminHtml(page.ctx, 200, applicationGrantsPage({ chrome: page.chrome, application, grants: list.apps, memberNames, nextPage, ok }));
    }),
  );

  router.post(
    `${ADMIN_PATHS.applications}/:clientId/grants/:grantId/revoke`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const application = await requireApplication(db, page.site.id, page.ctx.params.clientId ?? '');
      // Scoped to this application of this site: any other grant id is a 404 and nothing changes.
      const grant = await disconnectApp(db, page.site, page.ctx.params.grantId ?? '', { clientRef: application.client.ref });
      page.ctx.state.log.info({ event: 'connected_app_revoked', userId: grant.userId, clientRef: application.client.ref }, 'connected app revoked in the admin area');
      redirectWithinAdmin(page.ctx, `${applicationGrantsPath(application.client.clientId)}?revoked=1`);
    }),
  );

  router.get(
    ADMIN_PATHS.memberConnectedApps,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const { email } = page.ctx.query;
      if (email === undefined) {
        sendAdminHtml(page.ctx, 200, memberLookupPage({ chrome: page.chrome }));
        return;
      }
      const typed = typeof email === 'string' ? email.trim() : '';
      if (typed === '') {
        sendAdminHtml(page.ctx, 400, memberLookupPage({ chrome: page.chrome, error: "Enter the member's email address." }));
        return;
      }
      const member = await memberByEmail(db, page.site.id, typed);
      if (!member) {
        sendAdminHtml(page.ctx, 404, memberLookupPage({ chrome: page.chrome, email: typed, error: `No member of ${page.site.name} has the email ${typed}.` }));
        return;
      }
      redirectWithinAdmin(page.ctx, memberGrantsPath(member.id));
    }),
  );

  router.get(
    `${ADMIN_PATHS.memberConnectedApps}/:userId`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const member = await requirePathMember(page);
      const list = await pageFrom(page, (query) => listMemberConnectedApps(db, page.site.id, member.id, query));
      const path = memberGrantsPath(member.id);
      const nextPage = list.nextCursor === null ? null : `${path}?after=${encodeURIComponent(list.nextCursor)}`;
      const ok = page.ctx.query.revoked === '1' ? "The member's grant was revoked: every token of it has stopped working." : null;
      sendAdminHtml(page.ctx, 200, memberGrantsPage({ chrome: page.chrome, member, grants: list.apps, nextPage, ok }));
    }),
  );

  router.post(
    `${ADMIN_PATHS.memberConnectedApps}/:userId/grants/:grantId/revoke`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const member = await requirePathMember(page);
      // Scoped to this member at this site: any other grant id is a 404 and nothing changes.
      const grant = await disconnectApp(db, page.site, page.ctx.params.grantId ?? '', { userId: member.id });
      page.ctx.state.log.info({ event: 'connected_app_revoked', userId: member.id, clientRef: grant.client.ref }, 'connected app revoked in the admin area');
      redirectWithinAdmin(page.ctx, `${memberGrantsPath(member.id)}?revoked=1`);
    }),
  );

  return router;
}
