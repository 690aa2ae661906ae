import type { Application } from '../../../clients/applications.js';
import type { ConnectedApp } from '../../../clients/connected-apps.js';
import { SCOPE_WORDING } from '../../../oauth/authorize/scope-wording.js';
import { html, joinHtml, safeUrl, type Html } from '../../../http/html.js';
import { SOURCE_WORDING, toTheHour } from '../../../pages/connected-apps/wording.js';
import { ADMIN_PATHS, applicationGrantsPath, applicationPath, memberGrantsPath } from '../paths.js';
import { adminPage, hiddenField, notices, type AdminChrome } from './layout.js';

/**
 * The admin area's lists of live grants: one application's (a row per member) and one member's (a row per
 * application). Both show the same columns, the scopes in the consent page's words, and a Revoke button per grant.
 */

/** The column that names the other side of each grant: the member on an application's page, and the other way round. */
interface GrantsTableInput {
  grants: readonly ConnectedApp[];
  heading: string;
  cell: (grant: ConnectedApp) => Html;
  /** The form target that revokes a grant. */
  revokeAction: (grant: ConnectedApp) => string;
  csrfToken: string | null;
  empty: string;
}

function grantsTable(input: GrantsTableInput): Html {
  if (input.grants.length === 0) return html`<p>${input.empty}</p>`;
  const csrf = hiddenField('csrf_token', input.csrfToken ?? '');
  const rows = joinHtml(
    input.grants.map(
      (grant) => html`<tr data-grant="${grant.grantId}">
<td>${input.cell(grant)}</td>
<td><ul class="scopes">${grant.scopes.map((scope) => html`<li>${SCOPE_WORDING[scope]} <code>${scope}</code></li>`)}</ul></td>
<td>${toTheHour(grant.approvedAt)}</td>
<td>${grant.lastUsedAt === null ? 'Not used yet' : toTheHour(grant.lastUsedAt)}</td>
<td><form method="post" action="${safeUrl(input.revokeAction(grant))}">${csrf}<button type="submit" class="secondary">Revoke</button></form></td>
</tr>`,
    ),
    '\n',
  );
  return html`<table>
<thead><tr><th>${input.heading}</th><th>Access</th><th>Approved</th><th>Last used</th><th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

function nextPageLink(nextPage: string | null): Html | '' {
  return nextPage === null ? '' : html`<p><a href="${safeUrl(nextPage)}" rel="next">Next page</a></p>`;
}

const REVOKE_EXPLAINED = html`Revoking ends every token of that approval at once (as the member's own Disconnect does) and tells the
application when it takes logout notices.`;

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
  const table = grantsTable({
    grants: input.grants,
    heading: 'Member',
    cell: (grant) => html`<a href="${safeUrl(memberGrantsPath(grant.userId))}">${input.memberNames.get(grant.userId) ?? `Account ${grant.userId}`}</a>`,
    revokeAction: (grant) => applicationGrantsPath(client.clientId, grant.grantId),
    csrfToken: input.chrome.csrfToken,
    empty: 'No member has a live grant of this application.',
  });
  return adminPage(
    input.chrome,
    'admin-application-grants',
    `${client.name}: connected members`,
    html`<h1>${client.name}: connected members</h1>
${notices({ ok: input.ok ?? null })}
<p>Members who approved this application and whose access is still live. ${REVOKE_EXPLAINED}</p>
${table}
${nextPageLink(input.nextPage)}
<p><a href="${safeUrl(applicationPath(client.clientId))}">Back to ${client.name}</a></p>`,
  );
}

export interface MemberLookupInput {
  chrome: AdminChrome;
  /** The email as typed, shown again with the error. */
  email?: string;
  error?: string | null;
}

/** Finds a member of the site by email, to see their connected apps. */
export function memberLookupPage(input: MemberLookupInput): string {
  return adminPage(
    input.chrome,
    'admin-member-lookup',
    "Members' connected apps",
    html`<h1>Members' connected apps</h1>
${notices({ error: input.error ?? null })}
<p>The applications a member of this school has approved and that still hold access, with a Revoke button each.</p>
<form method="get" action="${ADMIN_PATHS.memberConnectedApps}">
<label for="email">Member's email</label>
<input type="text" id="email" name="email" required maxlength="320" autocomplete="off" value="${input.email ?? ''}">
<div class="actions"><button type="submit">Show connected apps</button></div>
</form>
<p class="fine">An application's page lists the members who approved it: Developers › OAuth applications › the application › Connected members.</p>`,
  );
}

export interface MemberGrantsInput {
  chrome: AdminChrome;
  member: { id: number; name: string; email: string };
  grants: readonly ConnectedApp[];
  nextPage: string | null;
  ok?: string | null;
}

/** A member's live grants at the site, one per approval of an application, each with a Revoke button. */
export function memberGrantsPage(input: MemberGrantsInput): string {
  const { member } = input;
  const table = grantsTable({
    grants: input.grants,
    heading: 'Application',
    cell: (grant) => html`<a href="${safeUrl(applicationPath(grant.client.clientId))}">${grant.client.name}</a><br><span class="fine">${SOURCE_WORDING[grant.source]}</span>`,
    revokeAction: (grant) => memberGrantsPath(member.id, grant.grantId),
    csrfToken: input.chrome.csrfToken,
    empty: 'No application holds a live grant of this member.',
  });
  return adminPage(
    input.chrome,
    'admin-member-grants',
    `${member.name}: connected apps`,
    html`<h1>${member.name}: connected apps</h1>
<p>${member.email}</p>
${notices({ ok: input.ok ?? null })}
<p>Applications this member approved and whose access is still live. ${REVOKE_EXPLAINED}</p>
${table}
${nextPageLink(input.nextPage)}
<p><a href="${ADMIN_PATHS.memberConnectedApps}">Look up another member</a></p>`,
  );
}
