import { html } from '../../../http/html.js';
import type { Site } from '../../../sites/sites.js';
import { authorizePage } from './page.js';

/**
 * An error shown instead of redirecting (RFC 6749 4.1.2.1): the client or redirect_uri could not be verified, or the
 * browser's form post cannot be accepted. It never links to the client, whose address is not trusted here.
 */
export function errorPage(site: Site, title: string, message: string, code: string): string {
  return authorizePage(
    site,
    'error',
    title,
    html`<h1>${title}</h1>
<p class="error" role="alert">${message}</p>
<p>Return to the application you came from and start again. If this keeps happening, contact ${site.name}.</p>
<p class="fine">Error code: <code>${code}</code></p>`,
  );
}
