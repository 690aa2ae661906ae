import type { Application } from '../../../clients/applications.js';
import type { TokenEndpointAuthMethod } from '../../../clients/clients.js';
import { ALL_SCOPES, IDENTITY_SCOPES, MEMBER_ONLY_SCOPES, SCOPE_DESCRIPTIONS, type Audience } from '../../../clients/scopes.js';
import { html, joinHtml, safeUrl, type Html } from '../../../http/html.js';
import type { FieldProblem } from '../../../shared/errors.js';
import { ADMIN_PATHS, applicationGrantsPath, applicationPath } from '../paths.js';
import { adminPage, hiddenField, notices, type AdminChrome } from './layout.js';

/** The attribute of a checked radio button or checkbox. */
const CHECKED = html` checked`;

const KIND_LABELS: Record<Application['client']['kind'], string> = {
  operator_created: 'Created here',
  vendor_platform: 'Vendor platform',
  metadata_document: 'Client ID Metadata Document',
  service: 'Service client (created here)',
};

function typeLabel(application: Application): string {
  const { client } = application;
  if (!client.confidential) return 'Public (PKCE, no secret)';
  return client.tokenEndpointAuthMethod === 'private_key_jwt' ? 'Confidential (signed with its keys)' : 'Confidential (client secret)';
}

/** The authentication and logout settings as the forms hold them (text as typed, so a refused form keeps it). */
export interface SettingsValues {
  authMethod: TokenEndpointAuthMethod;
  jwks: string;
  jwksUri: string;
  dpopBoundAccessTokens: boolean;
  postLogoutRedirectUris: string;
  backchannelLogoutUri: string;
}

export function settingsValuesOf(application: Application): SettingsValues {
  const { client } = application;
  return {
    authMethod: client.tokenEndpointAuthMethod,
    jwks: client.jwks === null ? '' : JSON.stringify(client.jwks, null, 2),
    jwksUri: client.jwksUri ?? '',
    dpopBoundAccessTokens: client.dpopBoundAccessTokens,
    postLogoutRedirectUris: client.postLogoutRedirectUris.join('\n'),
    backchannelLogoutUri: client.backchannelLogoutUri ?? '',
  };
}

const AUTH_METHOD_LABELS: Record<TokenEndpointAuthMethod, string> = {
  none: 'none: a public client (PKCE, no secret)',
  client_secret_post: 'client_secret_post: the secret in the request body',
  client_secret_basic: 'client_secret_basic: the secret in HTTP Basic',
  private_key_jwt: 'private_key_jwt: an assertion signed with its registered keys',
};

/** The fields of the authentication and logout settings, shared by the create and the settings forms. */
function settingsFields(values: SettingsValues, service: boolean): Html {
  const option = (method: TokenEndpointAuthMethod) => html`<option value="${method}"${values.authMethod === method && html` selected`}>${AUTH_METHOD_LABELS[method]}</option>`;
  return html`<label for="token_endpoint_auth_method">Token endpoint authentication</label>
<select id="token_endpoint_auth_method" name="token_endpoint_auth_method">${joinHtml((['none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'] as const).map(option), '')}</select>
<p class="fine">A public application uses <code>none</code>; a confidential one a secret (<code>client_secret_post</code> or <code>client_secret_basic</code>) or its keys (<code>private_key_jwt</code>).</p>
<label for="jwks">Public keys (JWK Set, for private_key_jwt)</label>
<textarea id="jwks" name="jwks">${values.jwks}</textarea>
<label for="jwks_uri">Or the https address of its JWK Set</label>
<input type="url" id="jwks_uri" name="jwks_uri" maxlength="2048" value="${values.jwksUri}">
<label><input type="checkbox" name="dpop_bound_access_tokens" value="on"${values.dpopBoundAccessTokens && CHECKED}> Require DPoP-bound access tokens</label>
${
  service
    ? ''
    : html`<label for="post_logout_redirect_uris">Post-logout redirect URIs</label>
<textarea id="post_logout_redirect_uris" name="post_logout_redirect_uris">${values.postLogoutRedirectUris}</textarea>
<p class="fine">One per line, matched exactly: where members may be sent back after signing out from the application.</p>
<label for="backchannel_logout_uri">Back-channel logout URI</label>
<input type="url" id="backchannel_logout_uri" name="backchannel_logout_uri" maxlength="2048" value="${values.backchannelLogoutUri}">
<p class="fine">Where a logout token is sent when a member's session or approval ends: <code>https://</code>, or <code>http://</code> on localhost.</p>`
}`;
}

function audienceLabel(audience: Audience): string {
  return audience === 'member' ? 'Members' : 'Operators';
}

export interface ApplicationListInput {
  chrome: AdminChrome;
  applications: readonly Application[];
  nextPage: string | null;
  ok?: string | null;
}

export function applicationsPage(input: ApplicationListInput): string {
  const rows = joinHtml(
    input.applications.map(
      (application) => html`<tr>
<td><a href="${safeUrl(applicationPath(application.client.clientId))}">${application.client.name}</a></td>
<td><code>${application.client.clientId}</code></td>
<td>${audienceLabel(application.client.audience)}</td>
<td>${typeLabel(application)}</td>
<td>${KIND_LABELS[application.client.kind]}${application.client.reviewed ? '' : ' (not reviewed)'}</td>
</tr>`,
    ),
    '\n',
  );
  return adminPage(
    input.chrome,
    'admin-applications',
    'OAuth applications',
    html`<h1>OAuth applications</h1>
${notices({ ok: input.ok ?? null })}
<p>Applications that may ask people at this school for access. Give an application's client ID to whoever runs it; members and operators then approve it on the consent page.</p>
<p><a href="${ADMIN_PATHS.newApplication}">New OAuth application</a></p>
${
  input.applications.length === 0
    ? html`<p>There are no OAuth applications yet.</p>`
    : html`<table>
<thead><tr><th>Name</th><th>Client ID</th><th>For</th><th>Type</th><th>Origin</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
}
${input.nextPage === null ? '' : html`<p><a href="${safeUrl(input.nextPage)}" rel="next">Next page</a></p>`}`,
  );
}

export interface NewApplicationValues extends SettingsValues {
  name: string;
  audience: Audience;
  confidential: boolean;
  /** A service client (client_credentials) rather than an application people sign in to. */
  service: boolean;
  scopes: readonly string[];
  redirectUris: string;
}

const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  audience: 'For',
  confidential: 'Confidential application',
  scopes: 'Scopes',
  redirectUris: 'Redirect URIs',
  tokenEndpointAuthMethod: 'Token endpoint authentication',
  jwks: 'Public keys',
  jwksUri: 'JWK Set address',
  postLogoutRedirectUris: 'Post-logout redirect URIs',
  backchannelLogoutUri: 'Back-channel logout URI',
};

/** A problem of the domain rules in words: "Scopes: "school:read" is not available to member clients". */
function problemText(problem: FieldProblem, values: { redirectUris?: string; postLogoutRedirectUris: string }): string {
  const [, field = '', index] = problem.pointer.split('/');
  const label = FIELD_LABELS[field] ?? 'The application';
  const listed = field === 'redirectUris' ? values.redirectUris : field === 'postLogoutRedirectUris' ? values.postLogoutRedirectUris : undefined;
  if (listed !== undefined && index !== undefined) {
    const uri = listed.split(/\r?\n/).map((line) => line.trim()).filter(Boolean)[Number(index)];
    return `${label}: ${uri ?? ''} ${problem.message}`;
  }
  const rest = problem.pointer.split('/').slice(2).join('/');
  return `${label}${rest === '' ? '' : ` (${rest})`}: ${problem.message}`;
}

function problemList(intro: string, problems: readonly FieldProblem[], values: { redirectUris?: string; postLogoutRedirectUris: string }): Html | false {
  return problems.length > 0 && html`<div class="error" role="alert"><p>${intro}</p><ul>${problems.map((problem) => html`<li>${problemText(problem, values)}</li>`)}</ul></div>`;
}

export interface NewApplicationInput {
  chrome: AdminChrome;
  values: NewApplicationValues;
  problems?: readonly FieldProblem[];
}

function scopeCheckbox(scope: string, checked: boolean): Html {
  const description = (SCOPE_DESCRIPTIONS as Record<string, string>)[scope] ?? scope;
  return html`<label><input type="checkbox" name="scopes" value="${scope}"${checked && CHECKED}> <code>${scope}</code> ${description}</label>`;
}

/**
 * The create form (spec, Authentication 4): name, who it is for, the confidential-application checkbox, the scopes it
 * may ask for and its redirect URIs. Member applications take identity and account scopes; operator applications the
 * identity and admin scopes.
 */
export function newApplicationPage(input: NewApplicationInput): string {
  const { values } = input;
  const problems = input.problems ?? [];
  const errorList = problemList('The application was not created:', problems, values);
  const checked = new Set(values.scopes);
  const memberScopes = [...IDENTITY_SCOPES, ...MEMBER_ONLY_SCOPES];
  const operatorScopes = ALL_SCOPES.filter((scope) => !memberScopes.includes(scope));
  return adminPage(
    input.chrome,
    'admin-application-new',
    'New OAuth application',
    html`<h1>New OAuth application</h1>
${errorList}
<form method="post" action="${ADMIN_PATHS.applications}">
${hiddenField('csrf_token', input.chrome.csrfToken ?? '')}
<label for="name">Name</label>
<input type="text" id="name" name="name" required maxlength="191" value="${values.name}">
<p class="fine">Shown to people on the consent page.</p>
<fieldset>
<legend>For</legend>
<label class="choice"><input type="radio" name="audience" value="member"${values.audience === 'member' && CHECKED}> Members: reads a signed-in member's own data (member API and MCP). Anyone with a role at the school can approve it.</label>
<label class="choice"><input type="radio" name="audience" value="operator"${values.audience === 'operator' && CHECKED}> Operators: works in the administration (admin API). Only owners, operators and staff can approve it.</label>
<label class="choice"><input type="checkbox" name="service" value="on"${values.service && CHECKED}> Service client: a script or another system calling the admin API as itself with <code>client_credentials</code>, without anyone signing in. It is a confidential operator client with admin scopes only (no identity scopes) and no redirect URIs; what it changes is recorded as done by it.</label>
</fieldset>
<fieldset>
<legend>Client type</legend>
<label class="choice"><input type="checkbox" id="confidential" name="confidential" value="on"${values.confidential && CHECKED}> Confidential application</label>
<p class="fine">Check it for an application that runs on a server and can keep a secret: it gets a client secret (shown once) and authenticates with <code>client_secret_post</code>. Leave it unchecked for apps on people's devices and agents: a public client uses PKCE and has no secret.</p>
</fieldset>
<fieldset>
<legend>Scopes</legend>
<p class="fine">Member applications: ${joinHtml(memberScopes.map((scope) => html`<code>${scope}</code>`), ', ')}.</p>
<div class="scopes-grid">
${joinHtml(memberScopes.map((scope) => scopeCheckbox(scope, checked.has(scope))), '\n')}
</div>
<p class="fine">Operator applications: the identity scopes above (not <code>account:*</code>) and:</p>
<div class="scopes-grid">
${joinHtml(operatorScopes.map((scope) => scopeCheckbox(scope, checked.has(scope))), '\n')}
</div>
</fieldset>
<label for="redirect_uris">Redirect URIs</label>
<textarea id="redirect_uris" name="redirect_uris">${values.redirectUris}</textarea>
<p class="fine">One per line: <code>https://</code>, <code>http://</code> on localhost or 127.0.0.1 only, or an app scheme such as <code>com.example.app:/callback</code>. Authorization requests must use one of them exactly. Leave empty for a service client.</p>
<fieldset>
<legend>Authentication and logout</legend>
${settingsFields(values, false)}
</fieldset>
<div class="actions"><button type="submit">Create application</button> <a href="${ADMIN_PATHS.applications}">Cancel</a></div>
</form>`,
  );
}

function facts(application: Application): Html {
  const { client } = application;
  return html`<dl class="facts">
<dt>Client ID</dt><dd><code class="client-id">${client.clientId}</code></dd>
<dt>For</dt><dd>${audienceLabel(client.audience)}</dd>
<dt>Type</dt><dd>${typeLabel(application)}; token endpoint authentication <code>${client.tokenEndpointAuthMethod}</code></dd>
<dt>Scopes</dt><dd>${joinHtml(client.scopes.map((scope) => html`<code>${scope}</code>`), ' ')}</dd>
<dt>Redirect URIs</dt><dd>${client.redirectUris.length === 0 ? 'none' : joinHtml(client.redirectUris.map((uri) => html`<code>${uri}</code>`), html`<br>`)}</dd>
${client.jwksUri !== null && html`<dt>JWK Set</dt><dd><code>${client.jwksUri}</code></dd>`}
${client.jwks !== null && html`<dt>Public keys</dt><dd>${client.jwks.keys.length} registered</dd>`}
${client.dpopBoundAccessTokens && html`<dt>DPoP</dt><dd>Access tokens must be DPoP-bound</dd>`}
${client.postLogoutRedirectUris.length > 0 && html`<dt>Post-logout redirect URIs</dt><dd>${joinHtml(client.postLogoutRedirectUris.map((uri) => html`<code>${uri}</code>`), html`<br>`)}</dd>`}
${client.backchannelLogoutUri !== null && html`<dt>Back-channel logout</dt><dd><code>${client.backchannelLogoutUri}</code></dd>`}
<dt>Origin</dt><dd>${KIND_LABELS[client.kind]}${application.vendorClientName !== null && html` (registration name <code>${application.vendorClientName}</code>)`}${client.reviewed ? '' : ', not reviewed yet: only read and identity scopes can be granted'}</dd>
<dt>Created</dt><dd>${client.createdAt.toISOString()}${createdByText(application)}</dd>
</dl>`;
}

function createdByText(application: Application): string {
  const { createdBy } = application;
  if (createdBy === null) return '';
  return createdBy.kind === 'user' ? ` by user ${createdBy.userId}` : ` by service client ${createdBy.clientId}`;
}

function secretBlock(secret: string): Html {
  return html`<p><strong>Client secret</strong></p>
<code class="secret" id="client-secret">${secret}</code>
<p class="notice" role="status">Copy the client secret now and store it safely. It is shown only this once; if it is lost, rotate it to get a new one.</p>`;
}

/** After creating: the client_id and, for a confidential application, its secret, shown this once. */
export function applicationCreatedPage(chrome: AdminChrome, application: Application, clientSecret: string | null): string {
  return adminPage(
    chrome,
    'admin-application-created',
    `${application.client.name} created`,
    html`<h1>${application.client.name} was created</h1>
<p class="ok" role="status">Give the client ID below to whoever runs the application.</p>
${clientSecret !== null ? secretBlock(clientSecret) : application.client.confidential ? html`<p>This application authenticates with the keys it registered (<code>private_key_jwt</code>); it has no client secret.</p>` : html`<p>This is a public application: it has no client secret and uses PKCE (S256).</p>`}
${facts(application)}
<p><a href="${ADMIN_PATHS.applications}">Back to OAuth applications</a></p>`,
  );
}

export function secretRotatedPage(chrome: AdminChrome, application: Application, clientSecret: string): string {
  return adminPage(
    chrome,
    'admin-application-secret',
    `New secret for ${application.client.name}`,
    html`<h1>New client secret for ${application.client.name}</h1>
<p>The previous secret no longer works. Tokens already issued stay valid.</p>
${secretBlock(clientSecret)}
${facts(application)}
<p><a href="${safeUrl(applicationPath(application.client.clientId))}">Back to the application</a></p>`,
  );
}

/** The settings form as last submitted, with its problems, when it was refused. */
export interface SettingsForm {
  values: SettingsValues;
  problems: readonly FieldProblem[];
}

/**
 * One application, with its authentication and logout settings (not for a metadata-document one: its document says),
 * delete (which revokes its tokens), revoke tokens, rotate secret (confidential) and review (metadata documents).
 */
export function applicationPage(chrome: AdminChrome, application: Application, ok: string | null = null, refused?: SettingsForm): string {
  const { client } = application;
  const csrf = hiddenField('csrf_token', chrome.csrfToken ?? '');
  const values = refused?.values ?? settingsValuesOf(application);
  const settings =
    client.kind !== 'metadata_document' &&
    html`<form method="post" action="${safeUrl(applicationPath(client.clientId, 'settings'))}">
${csrf}
${hiddenField('version', String(client.version))}
<fieldset>
<legend>Authentication and logout</legend>
${problemList('The settings were not saved:', refused?.problems ?? [], values)}
${settingsFields(values, client.kind === 'service')}
</fieldset>
<div class="actions"><button type="submit" class="secondary">Save settings</button></div>
</form>`;
  const revokeTokens = html`<form method="post" action="${safeUrl(applicationPath(client.clientId, 'revoke-tokens'))}">${csrf}<p>Revoking its tokens stops every token the application holds at once; it keeps working once it gets new ones.</p><div class="actions"><button type="submit" class="secondary">Revoke all tokens</button></div></form>`;
  const rotate =
    client.confidential &&
    html`<form method="post" action="${safeUrl(applicationPath(client.clientId, 'rotate-secret'))}">${csrf}<div class="actions"><button type="submit" class="secondary">Rotate client secret</button></div></form>`;
  const review =
    client.kind === 'metadata_document' &&
    !client.reviewed &&
    html`<form method="post" action="${safeUrl(applicationPath(client.clientId, 'review'))}">${csrf}<div class="actions"><button type="submit" class="secondary">Mark as reviewed</button></div></form>`;
  return adminPage(
    chrome,
    'admin-application',
    client.name,
    html`<h1>${client.name}</h1>
${notices({ ok })}
${facts(application)}
${settings}
${rotate}
${review}
${revokeTokens}
<form method="post" action="${safeUrl(applicationPath(client.clientId, 'delete'))}">
${csrf}
<p>Deleting the application revokes every token it holds at once; people who use it must be given a new application.</p>
<div class="actions"><button type="submit" class="danger">Delete application</button></div>
</form>
<p><a href="${safeUrl(applicationGrantsPath(client.clientId))}">Connected members</a>: the members who approved it and still hold access, each with a Revoke button.</p>
<p><a href="${ADMIN_PATHS.applications}">Back to OAuth applications</a></p>`,
  );
}
