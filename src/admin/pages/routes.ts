import Router from '@koa/router';
import { sessionCsrfTokenMatches } from '../../accounts/csrf.js';
import { rolesAt } from '../../accounts/roles.js';
import { signInOnSession } from '../../accounts/sessions.js';
import { signInWithPassword } from '../../accounts/sign-in.js';
import { signOutSession } from '../../oauth/logout/sign-out.js';
import {
  createApplication,
  deleteApplication,
  listApplications,
  requireApplication,
  reviewApplication,
  revokeApplicationTokens,
  rotateApplicationSecret,
  updateApplication,
} from '../../clients/applications.js';
import type { ClientSettingsInput } from '../../clients/client-settings.js';
import { TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from '../../clients/clients.js';
import { isScope, type Audience } from '../../clients/scopes.js';
import { findBrowserSession, setBrowserSessionCookie } from '../../http/browser-session.js';
import type { SiteState } from '../../http/state.js';
import { SIGN_IN_FAILED_MESSAGE } from '../../oauth/authorize/sign-in-endpoint.js';
import { TooManyAttemptsError } from '../../oauth/authorize/errors.js';
import type { Services } from '../../services.js';
import { ConflictError, ValidationError, type FieldProblem } from '../../shared/errors.js';
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
import { applicationCreatedPage, applicationPage, applicationsPage, newApplicationPage, secretRotatedPage, type NewApplicationValues, type SettingsValues } from './views/applications.js';
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
  return {
    name: '',
    audience: 'member',
    confidential: false,
    service: false,
    scopes: ['openid', 'profile', 'account:read'],
    redirectUris: '',
    authMethod: 'none',
    jwks: '',
    jwksUri: '',
    dpopBoundAccessTokens: false,
    postLogoutRedirectUris: '',
    backchannelLogoutUri: '',
  };
}

function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

function settingsFormValues(form: URLSearchParams): SettingsValues {
  const method = single(form, 'token_endpoint_auth_method') ?? 'none';
  return {
    authMethod: (TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method) ? (method as TokenEndpointAuthMethod) : 'none',
    jwks: single(form, 'jwks') ?? '',
    jwksUri: (single(form, 'jwks_uri') ?? '').trim(),
    dpopBoundAccessTokens: single(form, 'dpop_bound_access_tokens') === 'on',
    postLogoutRedirectUris: single(form, 'post_logout_redirect_uris') ?? '',
    backchannelLogoutUri: (single(form, 'backchannel_logout_uri') ?? '').trim(),
  };
}

function formValues(form: URLSearchParams): NewApplicationValues {
  const audience = single(form, 'audience');
  return {
    name: single(form, 'name') ?? '',
    audience: audience === 'operator' ? 'operator' : 'member',
    confidential: single(form, 'confidential') === 'on',
    service: single(form, 'service') === 'on',
    scopes: form.getAll('scopes'),
    redirectUris: single(form, 'redirect_uris') ?? '',
    ...settingsFormValues(form),
  };
}

/**
 * The settings a form gives, in the admin API's terms; empty fields are "none". `none` on a confidential application's
 * form means its default (the select starts there). A JWK Set that is not JSON is a problem at /jwks.
 */
function settingsInput(values: SettingsValues, confidential: boolean): { settings: ClientSettingsInput; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  let jwks: unknown = null;
  if (values.jwks.trim() !== '') {
    try {
      jwks = JSON.parse(values.jwks) as unknown;
    } catch {
      problems.push({ pointer: '/jwks', message: 'is not valid JSON: paste the JWK Set, {"keys": [...]}' });
    }
  }
  const settings: ClientSettingsInput = {
    jwks,
    jwksUri: values.jwksUri === '' ? null : values.jwksUri,
    dpopBoundAccessTokens: values.dpopBoundAccessTokens,
    postLogoutRedirectUris: lines(values.postLogoutRedirectUris),
    backchannelLogoutUri: values.backchannelLogoutUri === '' ? null : values.backchannelLogoutUri,
  };
  if (!(confidential && values.authMethod === 'none')) settings.tokenEndpointAuthMethod = values.authMethod;
  return { settings, problems };
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
      if (found && sessionCsrfTokenMatches(found.session, AREA_CSRF, single(form, 'csrf_token'))) await signOutSession(db, found.session);
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
      // A service client is a confidential operator client, whatever the other boxes say.
      const audience: Audience = values.service ? 'operator' : values.audience;
      const confidential = values.service || values.confidential;
      const { settings, problems } = settingsInput(values, confidential);
      try {
        if (problems.length > 0) throw new ValidationError('The OAuth application is not valid.', problems);
        const { application, clientSecret } = await createApplication(db, page.site.id, {
          name: values.name,
          audience,
          confidential,
          kind: values.service ? 'service' : 'operator_created',
          scopes: values.scopes.filter(isScope),
          redirectUris: lines(values.redirectUris),
          createdBy: { kind: 'user', userId: page.user.id },
          settings,
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
      const { reviewed, saved, revoked } = page.ctx.query;
      const ok = reviewed === '1' ? 'The application was marked as reviewed.' : saved === '1' ? 'The settings were saved.' : revoked === '1' ? 'Every token of the application was revoked.' : null;
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
    `${ADMIN_PATHS.applications}/:clientId/settings`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const current = await requireApplication(db, page.site.id, page.ctx.params.clientId ?? '');
      const values = settingsFormValues(page.form);
      const version = Number(single(page.form, 'version'));
      const { settings, problems } = settingsInput(values, current.client.confidential);
      try {
        if (problems.length > 0) throw new ValidationError('The OAuth application is not valid.', problems);
        const application = await updateApplication(db, page.site.id, current.client.clientId, settings, Number.isSafeInteger(version) ? version : -1);
        page.ctx.state.log.info({ event: 'oauth_application_updated', clientRef: application.client.ref }, 'OAuth application settings saved in the admin area');
        redirectWithinAdmin(page.ctx, `${applicationPath(application.client.clientId)}?saved=1`);
      } catch (error) {
        if (error instanceof ValidationError) {
          sendAdminHtml(page.ctx, 400, applicationPage(page.chrome, current, null, { values, problems: error.problems }));
          return;
        }
        if (!(error instanceof ConflictError)) throw error;
        const problem = { pointer: error.code === 'application_has_no_secret' ? '/tokenEndpointAuthMethod' : '', message: error.message };
        sendAdminHtml(page.ctx, 409, applicationPage(page.chrome, await requireApplication(db, page.site.id, current.client.clientId), null, { values, problems: [problem] }));
      }
    }),
  );

  router.post(
    `${ADMIN_PATHS.applications}/:clientId/revoke-tokens`,
    operatorPage(db, async (page) => {
      requireDevelopersArea(page);
      const { application, revokedPairs } = await revokeApplicationTokens(db, page.site.id, page.ctx.params.clientId ?? '');
      page.ctx.state.log.info({ event: 'oauth_application_tokens_revoked', clientRef: application.client.ref, revokedPairs }, 'OAuth application tokens revoked in the admin area');
      redirectWithinAdmin(page.ctx, `${applicationPath(application.client.clientId)}?revoked=1`);
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
