import type { User } from '../../../accounts/users.js';
import { hiddenField, PAGE_STYLE } from '../../../oauth/authorize/pages/page.js';
import { html, joinHtml, type Html } from '../../../http/html.js';
import { layout } from '../../../http/layout.js';
import type { Site } from '../../../sites/sites.js';
import { ADMIN_PATHS } from '../paths.js';

export { hiddenField };

/** Which admin page a response is; tests find it on `<main data-page>`. */
export type AdminPageName =
  | 'admin-sign-in'
  | 'admin-home'
  | 'admin-settings'
  | 'admin-applications'
  | 'admin-application-new'
  | 'admin-application-created'
  | 'admin-application'
  | 'admin-application-secret'
  | 'admin-application-grants'
  | 'admin-member-lookup'
  | 'admin-member-grants'
  | 'admin-usage'
  | 'admin-error';

const ADMIN_STYLE = html`<style>
body{max-width:56rem}
nav.admin{display:flex;gap:1rem;flex-wrap:wrap;align-items:center;border-bottom:1px solid #d9dee3;padding-bottom:.6rem}
nav.admin .who{margin-left:auto;color:#52606d;font-size:.9rem}
table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e4e7eb;vertical-align:top}
th{font-size:.85rem;color:#52606d}
input[type=text],textarea{width:100%;box-sizing:border-box;padding:.5rem .6rem;font-size:1rem;border:1px solid #9aa5b1;border-radius:4px}
textarea{min-height:5rem;font-family:ui-monospace,monospace;font-size:.9rem}
fieldset{border:1px solid #d9dee3;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
.choice{display:block;font-weight:normal;margin:.3rem 0}
.scopes-grid{columns:2;column-gap:2rem}.scopes-grid label{display:block;font-weight:normal;margin:.15rem 0;break-inside:avoid}
.secret{font-family:ui-monospace,monospace;background:#f1f3f5;padding:.6rem .8rem;border-radius:4px;word-break:break-all;display:block}
.ok{background:#e6f4ea;border:1px solid #b7dfc0;padding:.6rem .8rem;border-radius:4px}
button.danger{background:#b42318;border-color:#b42318}
dl.facts dt{font-weight:600;margin-top:.6rem}dl.facts dd{margin:0}
ul.clients{margin:0;padding-left:1.1rem}
</style>`;

export interface AdminChrome {
  site: Site;
  /** The signed-in operator; null on the sign-in and error pages of someone not signed in. */
  user: User | null;
  csrfToken: string | null;
  /** Shows Developers > OAuth applications and Members' connected apps in the navigation (the MCP connections beta is on). */
  developersVisible: boolean;
}

function navigation(chrome: AdminChrome): Html | null {
  if (chrome.user === null || chrome.csrfToken === null) return null;
  const links = [html`<a href="${ADMIN_PATHS.home}">Overview</a>`, html`<a href="${ADMIN_PATHS.settings}">Settings</a>`, html`<a href="${ADMIN_PATHS.usage}">API usage</a>`];
  if (chrome.developersVisible) {
    links.push(html`<a href="${ADMIN_PATHS.applications}">Developers › OAuth applications</a>`, html`<a href="${ADMIN_PATHS.memberConnectedApps}">Members' connected apps</a>`);
  }
  return html`<nav class="admin">${joinHtml(links, '\n')}
<span class="who">${chrome.user.name}
<form method="post" action="${ADMIN_PATHS.signOut}" class="inline">${hiddenField('csrf_token', chrome.csrfToken)}<button type="submit" class="linkish">Sign out</button></form></span>
</nav>`;
}

/** A whole admin page: the site's name, the navigation, one `<main>`; no script anywhere (works without JavaScript). */
export function adminPage(chrome: AdminChrome, page: AdminPageName, title: string, main: Html): string {
  return layout(
    `${title} · Admin · ${chrome.site.name}`,
    html`${PAGE_STYLE}${ADMIN_STYLE}
<p class="site">${chrome.site.name} · Admin</p>
${navigation(chrome)}
<main data-page="${page}">
${main}
</main>`,
  );
}

export function notices(input: { error?: string | null; notice?: string | null; ok?: string | null }): Html {
  return html`${[
    input.ok && html`<p class="ok" role="status">${input.ok}</p>`,
    input.notice && html`<p class="notice" role="status">${input.notice}</p>`,
    input.error && html`<p class="error" role="alert">${input.error}</p>`,
  ]}`;
}

export function errorPageHtml(chrome: AdminChrome, title: string, message: string, code: string): string {
  return adminPage(
    chrome,
    'admin-error',
    title,
    html`<h1>${title}</h1>
<p class="error" role="alert">${message}</p>
<p><a href="${ADMIN_PATHS.home}">Back to the admin area</a></p>
<p class="fine">Error code: <code>${code}</code></p>`,
  );
}
