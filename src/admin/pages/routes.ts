import Router from '@koa/router';
import { sessionCsrfTokenMatches } from '../../accounts/csrf.js';
import { rolesAt } from '../../accounts/roles.js';
import { endSession, signInOnSession } from '../../accounts/sessions.js';
import { signInWithPassword } from '../../accounts/sign-in.js';
import {
  createApplication,
  deleteApplication,
  listApplications,
  requireApplication,
  reviewApplication,
  rotateApplicationSecret,
} from '../../clients/applications.js';
import { isScope, type Audience } from '../../clients/scopes.js';
import { findBrowserSession, setBrowserSessionCookie } from '../../http/browser-session.js';
import type { SiteState } from '../../http/state.js';
import { SIGN_IN_FAILED_MESSAGE } from '../../oauth/authorize/sign-in-endpoint.js';
import { TooManyAttemptsError } from '../../oauth/authorize/errors.js';
import type { Services } from '../../services.js';
import { ConflictError, ValidationError } from '../../shared/errors.js';
import { getSite } from '../../sites/sites.js';
import { readMcpConnections, updateMcpConnections } from '../mcp-connections.js';
import {
  AdminPageError,
  adminErrorPage,
  chromeFor,
  csrfFailure,
  isOperator,
  operatorPage,
  readAdminForm,
  redirectWithinAdmin,
  sendAdminHtml,
  showSignIn,
  SIGN_IN_CSRF,
  single,
  AREA_CSRF,
  type AdminPageContext,
} from './area.js';
import { ADMIN_PATHS, applicationPath, safeReturnPath } from './paths.js';
import { applicationCreatedPage, applicationPage, applicationsPage, newApplicationPage, secretRotatedPage, type NewApplicationValues } from './views/applications.js';
import { adminHomePage, adminSettingsPage } from './views/settings.js';

/**
 * The admin area under /admin (docs/admin-area.md): server-rendered, no JavaScript. Sign in with an operator account,
 * switch the MCP connections beta on in Settings, then Developers > OAuth applications: list, create (with the
 * confidential checkbox; the client_id and a confidential application's secret are shown once), rotate, review and
 * delete. Every change goes through the same domain functions as the admin API.
 */

const PAGE_SIZE = 50;
const LIST_SORT = '-createdAt';

/** Developers > OAuth applications exists only while the beta is on (spec, Authentication 4). */
function requireDevelopersArea(page: AdminPageContext): void {
  if (!page.site.mcpConnectionsEnabled) {
    throw new AdminPageError(404, 'mcp_connections_disabled', 'Developers is not available', 'OAuth applications appear once the MCP connections beta is on. Turn it on in Settings.');
  }
}

function emptyValues(): NewApplicationValues {
  return { name: '', audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'], redirectUris: '' };
}

function formValues(form: URLSearchParams): NewApplicationValues {
  const audience = single(form, 'audience');
  return {
    name: single(form, 'name') ?? '',
    audience: audience === 'operator' ? 'operator' : 'member',
    confidential: single(form, 'confidential') === 'on',
    scopes: form.getAll('scopes'),
    redirectUris: single(form, 'redirect_uris') ?? '',
  };
}

export function adminPageRoutes(services: Services): Router<SiteState> {
  const { db } = services;
  const router = new Router<SiteState>();

  router.post(ADMIN_PATHS.signIn, async (ctx) => {
    try {
      const form = await readAdminForm(ctx);
      const returnTo = safeReturnPath(single(form, 'return_to'));
      const found = await findBrowserSession(ctx, db, ctx.state.site);
      if (!found || !sessionCsrfTokenMatches(found.session, SIGN_IN_CSRF, single(form, 'csrf_token'))) throw csrfFailure();
      const email = (single(form, 'email') ?? '').trim();
      const password = single(form, 'password') ?? '';
      if (email === '' || password === '') {
        await showSignIn(ctx, db, { status: 400, returnTo, email, error: 'Enter your email and password.', session: found.session });
        return;
      }
      const outcome = await signInWithPassword(db, { siteId: ctx.state.site.id, email, password, clientAddress: ctx.ip });
      if (outcome.kind === 'rate_limited') throw new TooManyAttemptsError(outcome.retryAfterSeconds);
      if (outcome.kind === 'invalid_credentials') {
        ctx.state.log.info({ event: 'admin_sign_in_failed' }, 'admin sign-in failed');
        await showSignIn(ctx, db, { status: 400, returnTo, email, error: SIGN_IN_FAILED_MESSAGE, session: found.session });
        return;
      }
      if (!isOperator(await rolesAt(db, ctx.state.site.id, outcome.user.id))) {
        await showSignIn(ctx, db, { status: 403, returnTo, email, error: `${outcome.user.email} is not an owner, operator or staff member of ${ctx.state.site.name}.`, session: found.session });
        return;
      }
      const signedIn = await signInOnSession(db, found.session, found.token, outcome.user.id);
      if (!signedIn) throw csrfFailure();
      setBrowserSessionCookie(ctx, ctx.state.site, signedIn.token, signedIn.session);
      ctx.state.log.info({ event: 'admin_signed_in', userId: outcome.user.id }, 'signed in to the admin area');
      redirectWithinAdmin(ctx, returnTo);
    } catch (error) {
      adminErrorPage(ctx, error);
    }
  });

  router.post(ADMIN_PATHS.signOut, async (ctx) => {
    try {
      const form = await readAdminForm(ctx);
      const found = await findBrowserSession(ctx, db, ctx.state.site);
      if (found && sessionCsrfTokenMatches(found.session, AREA_CSRF, single(form, 'csrf_token'))) await endSession(db, found.session.id);
      else if (found) throw csrfFailure();
      redirectWithinAdmin(ctx, ADMIN_PATHS.home);
    } catch (error) {
      adminErrorPage(ctx, error);
    }
  });

  router.get(
    ADMIN_PATHS.home,
    operatorPage(db, async (page) => {
      sendAdminHtml(page.ctx, 200, adminHomePage(page.chrome, await readMcpConnections(db, page.site)));
    }),
  );

  router.get(
    ADMIN_PATHS.settings,
    operatorPage(db, async (page) => {
      const ok = page.ctx.query.saved === '1' ? 'The settings were saved.' : null;
      sendAdminHtml(page.ctx, 200, adminSettingsPage({ chrome: page.chrome, settings: await readMcpConnections(db, page.site), ok }));
    }),
  );

  router.post(
    ADMIN_PATHS.settings,
    operatorPage(db, async (page) => {
      const version = Number(single(page.form, 'version'));
      const betaEnabled = single(page.form, 'mcp_connections_beta') === 'on';
      try {
        await updateMcpConnections(db, page.site, { betaEnabled }, Number.isSafeInteger(version) ? version : -1);
      } catch (error) {
        if (!(error instanceof ConflictError && error.code === 'version_mismatch')) throw error;
        const site = await getSite(db, page.site.id);
        const notice = 'Someone else changed the settings while you were editing them. These are the current settings; make your change again.';
        sendAdminHtml(page.ctx, 409, adminSettingsPage({ chrome: chromeFor(site, page.user, page.session), settings: await readMcpConnections(db, site), notice }));
        return;
      }
      redirectWithinAdmin(page.ctx, `${ADMIN_PATHS.settings}?saved=1`);
    }),
  );

  router.get(
    ADMIN_PATHS.applications,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const cursor = typeof page.ctx.query.after === 'string' ? page.ctx.query.after : undefined;
      const list = await listApplications(db, page.site.id, {}, { limit: PAGE_SIZE, sort: LIST_SORT, ...(cursor === undefined ? {} : { cursor }) }).catch((error: unknown) => {
        // A stale or mangled "Next page" link starts again from the first page.
        if (!(error instanceof ValidationError && error.code === 'invalid_cursor')) throw error;
        return listApplications(db, page.site.id, {}, { limit: PAGE_SIZE, sort: LIST_SORT });
      });
      const nextPage = list.nextCursor === null ? null : `${ADMIN_PATHS.applications}?after=${encodeURIComponent(list.nextCursor)}`;
      const deleted = page.ctx.query.deleted === '1' ? 'The application was deleted and its tokens revoked.' : null;
      sendAdminHtml(page.ctx, 200, applicationsPage({ chrome: page.chrome, applications: list.applications, nextPage, ok: deleted }));
    }),
  );

  router.get(
    ADMIN_PATHS.newApplication,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      sendAdminHtml(page.ctx, 200, newApplicationPage({ chrome: page.chrome, values: emptyValues() }));
    }),
  );

  router.post(
    ADMIN_PATHS.applications,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const values = formValues(page.form);
      const audience: Audience = values.audience;
      const redirectUris = values.redirectUris
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
      try {
        const { application, clientSecret } = await createApplication(db, page.site.id, {
          name: values.name,
          audience,
          confidential: values.confidential,
          kind: 'operator_created',
          scopes: values.scopes.filter(isScope),
          redirectUris,
          createdByUserId: page.user.id,
        });
        page.ctx.state.log.info({ event: 'oauth_application_created', clientRef: application.client.ref }, 'OAuth application created in the admin area');
        sendAdminHtml(page.ctx, 201, applicationCreatedPage(page.chrome, application, clientSecret));
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        sendAdminHtml(page.ctx, 400, newApplicationPage({ chrome: page.chrome, values, problems: error.problems }));
      }
    }),
  );

  router.get(
    `${ADMIN_PATHS.applications}/:clientId`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const clientId = page.ctx.params.clientId ?? '';
      const ok = page.ctx.query.reviewed === '1' ? 'The application was marked as reviewed.' : null;
      sendAdminHtml(page.ctx, 200, applicationPage(page.chrome, await requireApplication(db, page.site.id, clientId), ok));
    }),
  );

  router.post(
    `${ADMIN_PATHS.applications}/:clientId/delete`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const { application, revokedPairs } = await deleteApplication(db, page.site.id, page.ctx.params.clientId ?? '');
      page.ctx.state.log.info({ event: 'oauth_application_deleted', clientRef: application.client.ref, revokedPairs }, 'OAuth application deleted in the admin area');
      redirectWithinAdmin(page.ctx, `${ADMIN_PATHS.applications}?deleted=1`);
    }),
  );

  router.post(
    `${ADMIN_PATHS.applications}/:clientId/rotate-secret`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const { application, clientSecret } = await rotateApplicationSecret(db, page.site.id, page.ctx.params.clientId ?? '');
      sendAdminHtml(page.ctx, 200, secretRotatedPage(page.chrome, application, clientSecret));
    }),
  );

  router.post(
    `${ADMIN_PATHS.applications}/:clientId/review`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const application = await reviewApplication(db, page.site.id, page.ctx.params.clientId ?? '');
      redirectWithinAdmin(page.ctx, `${applicationPath(application.client.clientId)}?reviewed=1`);
    }),
  );

  return router;
}
