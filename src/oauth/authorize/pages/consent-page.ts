import type { User } from '../../../accounts/users.js';
import type { OAuthClient } from '../../../clients/clients.js';
import type { Scope } from '../../../clients/scopes.js';
import { CONNECTED_APPS_PATHS } from '../../../pages/connected-apps/paths.js';
import { html, joinHtml, safeUrl, type Html } from '../../../http/html.js';
import type { Site } from '../../../sites/sites.js';
import { AUTHORIZE_PATHS } from '../paths.js';
import { SCOPE_WORDING } from '../scope-wording.js';
import { authorizePage, hiddenField } from './page.js';

export interface ConsentPageInput {
  site: Site;
  client: OAuthClient;
  scopes: readonly Scope[];
  redirectUri: string;
  user: User;
  handle: string;
  csrfToken: string;
}

/** Where the browser goes next, as people recognise it: the host, or a native app's scheme. */
export function redirectDestination(redirectUri: string): string {
  const url = new URL(redirectUri);
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.host;
  return url.host === '' ? url.protocol : `${url.protocol}//${url.host}`;
}

function kindSentence(client: OAuthClient, site: Site): Html {
  return client.audience === 'operator'
    ? html`<strong>Operator tool</strong>: it works in the administration of ${site.name} on your behalf, with your staff rights.`
    : html`<strong>Member app</strong>: it reads your own data at ${site.name} on your behalf.`;
}

/**
 * The consent page, shown on every authorization (spec, Authentication 13): who asks (the client and its kind), at
 * which school, for what (each scope in words), as whom, and where the answer goes. Approve and Deny post to
 * /oauth/authorize/consent; "sign in as someone else" ends the session and shows the sign-in page again.
 */
export function consentPage(input: ConsentPageInput): string {
  const { site, client, user } = input;
  const hidden = html`${hiddenField('handle', input.handle)}${hiddenField('csrf_token', input.csrfToken)}`;
  const scopes = joinHtml(input.scopes.map((scope) => html`<li>${SCOPE_WORDING[scope]} <code>${scope}</code></li>`), '\n');
  return authorizePage(
    site,
    'consent',
    `Allow ${client.name}?`,
    html`<h1>Allow <strong>${client.name}</strong> to access your account at ${site.name}?</h1>
<p>${kindSentence(client, site)}</p>
<p>It asks to:</p>
<ul class="scopes">
${scopes}
</ul>
<div class="account">Signed in as <strong>${user.name}</strong> (${user.email}).
<form method="post" action="${AUTHORIZE_PATHS.switchAccount}" class="inline">${hidden}<button type="submit" class="linkish">Not you? Sign in as someone else</button></form></div>
<form method="post" action="${AUTHORIZE_PATHS.consent}">
${hidden}
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
<p class="fine">Either way you will be sent back to <strong>${redirectDestination(input.redirectUri)}</strong>.
Applications you approved before keep the access you gave them until it is revoked; you can see them and disconnect
any of them in <a href="${safeUrl(CONNECTED_APPS_PATHS.list)}">your connected apps</a>.</p>`,
  );
}
