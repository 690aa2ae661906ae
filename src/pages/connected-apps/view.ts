import type { User } from '../../accounts/users.js';
import type { ConnectedApp } from '../../clients/connected-apps.js';
import { PAGE_STYLE } from '../../oauth/authorize/pages/page.js';
import { SCOPE_WORDING } from '../../oauth/authorize/scope-wording.js';
import type { Site } from '../../sites/sites.js';
import { html, joinHtml, safeUrl, type Html } from '../../http/html.js';
import { layout } from '../../http/layout.js';
import { CONNECTED_APPS_PATHS } from './paths.js';
import { SOURCE_WORDING, toTheHour } from './wording.js';
import { signInFields } from '../sign-in-fields.js';

/** Which page a response is (`<main data-page>`), for tests and browser drivers. */
type ConnectedAppsPageName = 'connected-apps' | 'connected-apps-sign-in' | 'connected-apps-error';

const LIST_STYLE = html`<style>
.apps{list-style:none;padding:0}.apps>li{border-top:1px solid #d9dee3;padding:1rem 0}
.apps h2{font-size:1.15rem;margin:0 0 .25rem}
.ok{background:#e8f5e9;border:1px solid #a5d6a7;padding:.6rem .8rem;border-radius:4px}
dl{margin:.5rem 0}dt{font-weight:600;display:inline}dd{display:inline;margin:0 0 0 .3rem}dd::after{content:"";display:block}
</style>`;

function page(site: Site, name: ConnectedAppsPageName, title: string, main: Html): string {
  return layout(`${title} · ${site.name}`, html`${PAGE_STYLE}${LIST_STYLE}
<p class="site">${site.name}</p>
<main data-page="${name}">
${main}
</main>`);
}

function hidden(name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}

function appItem(app: ConnectedApp, csrfToken: string): Html {
  // The consent page's own wording of each scope (one table for both pages).
  const scopes = joinHtml(
    app.scopes.map((scope) => html`<li>${SCOPE_WORDING[scope] ?? scope} <code>${scope}</code></li>`),
    '\n',
  );
  return html`<li data-grant="${app.grantId}">
<h2>${app.client.name}</h2>
<dl>
<dt>Where it came from:</dt><dd>${SOURCE_WORDING[app.source]}</dd>
<dt>Approved:</dt><dd>${toTheHour(app.approvedAt)}</dd>
<dt>Last used:</dt><dd>${app.lastUsedAt === null ? 'Not used yet' : toTheHour(app.lastUsedAt)}</dd>
</dl>
<p>It can:</p>
<ul class="scopes">
${scopes}
</ul>
<form method="post" action="${CONNECTED_APPS_PATHS.disconnect}">
${hidden('csrf_token', csrfToken)}${hidden('grant_id', app.grantId)}
<button type="submit" class="secondary">Disconnect ${app.client.name}</button>
</form>
</li>`;
}

export interface ConnectedAppsPageInput {
  site: Site;
  user: User;
  apps: readonly ConnectedApp[];
  /** The next page of the list, when there is one. */
  nextPage?: string | null;
  csrfToken: string;
  /** Shown after a disconnect. */
  ok?: string | null;
}

/** The member's connected applications at the site, each with a Disconnect button. */
export function connectedAppsPage(input: ConnectedAppsPageInput): string {
  const { site, user, apps } = input;
  const list =
    apps.length === 0
      ? html`<p>No application has access to your account at ${site.name}.</p>`
      : html`<ul class="apps">
${joinHtml(
  apps.map((app) => appItem(app, input.csrfToken)),
  '\n',
)}
</ul>`;
  return page(
    site,
    'connected-apps',
    'Connected apps',
    html`<h1>Applications with access to your account</h1>
<div class="account">Signed in as <strong>${user.name}</strong> (${user.email}).</div>
${input.ok ? html`<p class="ok" role="status">${input.ok}</p>` : ''}
${list}
${input.nextPage ? html`<p><a href="${safeUrl(input.nextPage)}" rel="next">More applications</a></p>` : ''}
<p class="fine">Disconnecting an application ends its access at once: every token you gave it stops working and it is told
you disconnected it. To use it again, approve it again from the application.</p>`,
  );
}

export interface ConnectedAppsSignInInput {
  site: Site;
  csrfToken: string;
  email?: string | null;
  error?: string | null;
  notice?: string | null;
}

/** Sign in to see your connected applications; comes back to the list. */
export function connectedAppsSignInPage(input: ConnectedAppsSignInInput): string {
  return page(
    input.site,
    'connected-apps-sign-in',
    'Sign in',
    html`<h1>Sign in to ${input.site.name}</h1>
<p>to see the applications that have access to your account.</p>
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ''}
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
<form method="post" action="${CONNECTED_APPS_PATHS.signIn}">
${hidden('csrf_token', input.csrfToken)}
${signInFields(input.email)}
</form>`,
  );
}

/** An error of these pages: what went wrong and a way back to the list. */
export function connectedAppsErrorPage(site: Site, title: string, message: string): string {
  return page(
    site,
    'connected-apps-error',
    title,
    html`<h1>${title}</h1>
<p>${message}</p>
<p><a href="${safeUrl(CONNECTED_APPS_PATHS.list)}">Back to your connected apps</a></p>`,
  );
}
