import { html, type Html } from '../http/html.js';
import { layout } from '../http/layout.js';
import type { Site } from '../sites/sites.js';
import { DOCS_PATHS } from './paths.js';

/** Which reference page a response is; tests find it on `<main data-page>`. */
export type DocsPageName = 'docs-index' | 'docs-member-api';

const DOCS_STYLE = html`<style>
body{max-width:60rem}
p.site{color:#52606d;font-size:.9rem}
nav.docs{display:flex;gap:1rem;flex-wrap:wrap;border-bottom:1px solid #d9dee3;padding-bottom:.6rem}
h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #e4e7eb;padding-bottom:.2rem}
h3{font-size:1.1rem;margin-top:1.8rem}
.kind{font-size:.8rem;font-weight:normal;color:#52606d;margin-left:.4rem}
dl.fields dt{margin-top:.9rem}dl.fields dd{margin:.2rem 0 0 1.2rem}
.scope{font-size:.8rem;background:#e8eefc;color:#1d3f8f;padding:.05rem .4rem;border-radius:3px;margin-left:.4rem;white-space:nowrap}
.deprecated{font-size:.8rem;background:#fdf0e6;color:#8a3c00;padding:.05rem .4rem;border-radius:3px;margin-left:.4rem}
ul.args{margin:.3rem 0;padding-left:1.2rem}
ul.toc{columns:3;column-gap:2rem;padding-left:1.2rem}ul.toc li{break-inside:avoid}
pre{background:#f1f3f5;padding:.6rem .8rem;border-radius:4px;overflow-x:auto}
</style>`;

/** A whole reference page: the site's name, the reference navigation and one `<main>`; no script. */
export function docsPage(site: Site, page: DocsPageName, title: string, main: Html): string {
  return layout(
    `${title} · ${site.name}`,
    html`${DOCS_STYLE}
<p class="site"><a href="/">${site.name}</a> · API reference</p>
<nav class="docs"><a href="${DOCS_PATHS.index}">Overview</a>
<a href="${DOCS_PATHS.adminApi}">Admin API</a>
<a href="${DOCS_PATHS.memberApi}">Member API</a>
<a href="/auth.md">Agent guide</a></nav>
<main data-page="${page}">
${main}
</main>`,
  );
}
