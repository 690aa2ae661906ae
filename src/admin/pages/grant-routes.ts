import Router from '@koa/router';
import { getUserAt } from '../../accounts/users.js';
import { requireApplication } from '../../clients/applications.js';
import { disconnectApp, listClientGrants } from '../../clients/connected-apps.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { ValidationError } from '../../shared/errors.js';
import { AdminPageError, operatorPage, redirectWithinAdmin, sendAdminHtml, type AdminPageContext } from './area.js';
import { ADMIN_PATHS, applicationGrantsPath } from './paths.js';
import { applicationGrantsPage } from './views/grants.js';

/**
 * Developers > OAuth applications > one application > Connected members (docs/connected-apps.md): the members'
 * live grants of the application with a Revoke button each, through the same domain functions as the admin API
 * (src/clients/connected-apps.ts).
 */

const PAGE_SIZE = 50;

function requireDevelopersArea(page: AdminPageContext): void {
  if (!page.site.mcpConnectionsEnabled) {
    throw new AdminPageError(404, 'mcp_connections_disabled', 'Developers is not available', 'OAuth applications appear once the MCP connections beta is on. Turn it on in Settings.');
  }
}

export function adminGrantRoutes(services: Services): Router<SiteState> {
  const { db } = services;
  const router = new Router<SiteState>();

  router.get(
    `${ADMIN_PATHS.applications}/:clientId/grants`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const application = await requireApplication(db, page.site.id, page.ctx.params.clientId ?? '');
      const cursor = typeof page.ctx.query.after === 'string' ? page.ctx.query.after : undefined;
      const list = await listClientGrants(db, page.site.id, application.client.ref, { limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) }).catch((error: unknown) => {
        // A stale or mangled "Next page" link starts again from the first page.
        if (!(error instanceof ValidationError && error.code === 'invalid_cursor')) throw error;
        return listClientGrants(db, page.site.id, application.client.ref, { limit: PAGE_SIZE });
      });
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

  return router;
}
