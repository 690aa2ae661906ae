import type { Application } from '../../../clients/applications.js';
import type { ConnectedApp } from '../../../clients/connected-apps.js';
import { SCOPE_WORDING } from '../../../oauth/authorize/scope-wording.js';
import { html, joinHtml, safeUrl } from '../../../pages/html.js';
import { toTheHour } from '../../../pages/connected-apps/wording.js';
import { applicationGrantsPath, applicationPath } from '../paths.js';
import { adminPage, hiddenField, notices, type AdminChrome } from './layout.js';

export interface ApplicationGrantsInput {
  chrome: AdminChrome;
  application: Application;
  grants: readonly ConnectedApp[];
  /** Names of the members, by user id. */
  memberNames: ReadonlyMap<number, string>;
  nextPage: string | null;
  ok?: string | null;
}

/** An application's live grants, one per member approval, each with a Revoke button (the member's Disconnect). */
export function applicationGrantsPage(input: ApplicationGrantsInput): string {
  const { client } = input.application;
  const csrf = hiddenField('csrf_token', input.chrome.csrfToken ?? '');
  const rows = joinHtml(
    input.grants.map(
      (grant) => html`<tr data-grant="${grant.grantId}">
<td>${input.memberNames.get(grant.userId) ?? `Account ${grant.userId}`}</td>
<td><ul class="scopes">${grant.scopes.map((scope) => html`<li>${SCOPE_WORDING[scope]} <code>${scope}</code></li>`)}</ul></td>
<td>${toTheHour(grant.approvedAt)}</td>
<td>${grant.lastUsedAt === null ? 'Not used yet' : toTheHour(grant.lastUsedAt)}</td>
<td><form method="post" action="${safeUrl(applicationGrantsPath(client.clientId, grant.grantId))}">${csrf}<button type="submit" class="secondary">Revoke</button></form></td>
</tr>`,
    ),
    '\n',
  );
  return adminPage(
    input.chrome,
    'admin-application-grants',
    `${client.name}: connected members`,
    html`<h1>${client.name}: connected members</h1>
${notices({ ok: input.ok ?? null })}
<p>Members who approved this application and whose access is still live. Revoking ends every token of that approval at
once (as the member's own Disconnect does) and tells the application when it takes logout notices.</p>
${
  input.grants.length === 0
    ? html`<p>No member has a live grant of this application.</p>`
    : html`<table>
<thead><tr><th>Member</th><th>Access</th><th>Approved</th><th>Last used</th><th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
}
${input.nextPage === null ? '' : html`<p><a href="${safeUrl(input.nextPage)}" rel="next">Next page</a></p>`}
<p><a href="${safeUrl(applicationPath(client.clientId))}">Back to ${client.name}</a></p>`,
  );
}
