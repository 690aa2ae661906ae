import type { SiteAddress } from '../shared/errors.js';
import { html, safeUrl } from './html.js';
import { layout } from './layout.js';

export interface UnknownOrigin {
  /** The origin the browser asked for, as the server read it from the request (scheme and Host). */
  origin: string;
  /** The database's one site, when it holds exactly one. */
  onlySite: SiteAddress | null;
  requestId: string;
}

/**
 * The page a browser gets at an origin that has no school site (404): it names that origin and, when the database holds
 * a single site, links to it (e.g. the demo at http://localhost:PORT reached as http://127.0.0.1:PORT). No link back to
 * this origin: every path of it answers this same page.
 */
export function unknownOriginPage(unknown: UnknownOrigin): string {
  const where = unknown.onlySite
    ? html`<p>The school site of this server, ${unknown.onlySite.name}, is at <a href="${safeUrl(unknown.onlySite.origin)}">${unknown.onlySite.origin}</a>.</p>`
    : html`<p>Check the address you opened: each school site answers only at its own address (scheme, host name and port). If you run this server, register a site for this origin (<code>schoolgate site create</code>), or open the address of an existing site.</p>`;
  return layout(
    'No school site at this address',
    html`<h1>No school site at this address</h1>
<p>No school site is configured at <code>${unknown.origin}</code>.</p>
${where}
<p><small>Error 404 · request id <code>${unknown.requestId}</code> (quote it when you report this)</small></p>`,
  );
}
