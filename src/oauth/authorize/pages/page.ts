import { html, type Html } from '../../../http/html.js';
import { layout } from '../../../http/layout.js';
import type { Site } from '../../../sites/sites.js';

/** Which page a response is; test drivers and the browser test find it on `<main data-page>`. */
export type PageName = 'sign-in' | 'consent' | 'error' | 'sign-out' | 'signed-out';

/** The look of the server-rendered pages (the authorize pages and the admin area). */
export const PAGE_STYLE = html`<style>
main{border:1px solid #d9dee3;border-radius:8px;padding:1.5rem 1.75rem;margin-top:1rem}
.site{color:#52606d;margin:0 0 .25rem;font-size:.95rem}
label{display:block;margin:.9rem 0 .25rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem .6rem;font-size:1rem;border:1px solid #9aa5b1;border-radius:4px}
button{font-size:1rem;padding:.55rem 1.1rem;border-radius:4px;border:1px solid #2457c5;background:#2457c5;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#2457c5}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.25rem;align-items:center}
.inline{display:inline;margin:0}
.linkish{background:none;border:none;color:#2457c5;padding:0;text-decoration:underline;font-size:inherit}
.error{background:#fdecea;border:1px solid #f5c2bd;color:#8a1c12;padding:.6rem .8rem;border-radius:4px}
.notice{background:#fff8e1;border:1px solid #f3d98b;padding:.6rem .8rem;border-radius:4px}
.scopes li{margin:.3rem 0}.scopes code{font-size:.8rem;color:#52606d}
.fine{color:#52606d;font-size:.9rem}
.account{margin:1rem 0}
</style>`;

/** A whole authorize page: the site's name on top, one `<main>`; no script anywhere (works without JavaScript). */
export function authorizePage(site: Site, page: PageName, title: string, main: Html): string {
  return layout(`${title} · ${site.name}`, html`${PAGE_STYLE}
<p class="site">${site.name}</p>
<main data-page="${page}">
${main}
</main>`);
}

export function hiddenField(name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}
