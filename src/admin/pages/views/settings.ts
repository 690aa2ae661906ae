import type { McpConnectionsSettings } from '../../mcp-connections.js';
import { html, joinHtml } from '../../../http/html.js';
import { ADMIN_PATHS } from '../paths.js';
import { adminPage, hiddenField, notices, type AdminChrome } from './layout.js';

export function adminHomePage(chrome: AdminChrome, settings: McpConnectionsSettings): string {
  const { site } = chrome;
  const developers = settings.betaEnabled
    ? html`<li><a href="${ADMIN_PATHS.applications}">Developers › OAuth applications</a>: the applications that may ask this school's members and operators for access.</li>
<li><a href="${ADMIN_PATHS.memberConnectedApps}">Members' connected apps</a>: the applications a member approved, by the member's email, with a Revoke button each.</li>`
    : html`<li>Developers › OAuth applications appears once the <strong>MCP connections beta</strong> is on (<a href="${ADMIN_PATHS.settings}">Settings</a>).</li>`;
  return adminPage(
    chrome,
    'admin-home',
    'Overview',
    html`<h1>${site.name}</h1>
<p>Signed in as <strong>${chrome.user?.name ?? ''}</strong>. This school is served at <code>${site.origin}</code>.</p>
<ul>
<li><a href="${ADMIN_PATHS.settings}">Settings</a>: the MCP connections beta.</li>
<li><a href="${ADMIN_PATHS.usage}">API usage</a>: which applications used which member API field, admin API operation and MCP tool lately.</li>
${developers}
</ul>`,
  );
}

export interface SettingsPageInput {
  chrome: AdminChrome;
  settings: McpConnectionsSettings;
  ok?: string | null;
  notice?: string | null;
}

/** The MCP connections beta switch (spec, Authentication 4): on shows Developers > OAuth applications. */
export function adminSettingsPage(input: SettingsPageInput): string {
  const { chrome, settings } = input;
  const hosts = settings.metadataDocumentHosts.length === 0 ? 'none' : joinHtml(settings.metadataDocumentHosts.map((host) => html`<code>${host}</code>`), ', ');
  return adminPage(
    chrome,
    'admin-settings',
    'Settings',
    html`<h1>Settings</h1>
${notices({ ok: input.ok ?? null, notice: input.notice ?? null })}
<form method="post" action="${ADMIN_PATHS.settings}">
${hiddenField('csrf_token', chrome.csrfToken ?? '')}${hiddenField('version', String(settings.site.version))}
<fieldset>
<legend>MCP connections (beta)</legend>
<label class="choice"><input type="checkbox" name="mcp_connections_beta" value="on"${settings.betaEnabled ? ' checked' : ''}> Turn on the MCP connections beta</label>
<p class="fine">It adds Developers › OAuth applications, where you create the OAuth applications (client IDs) that AI assistants and other tools use to reach this school. Turning it off hides them; it deletes nothing and revokes no access.</p>
</fieldset>
<div class="actions"><button type="submit">Save settings</button></div>
</form>
<p class="fine">Client ID Metadata Documents are accepted from ${settings.openRegistration ? 'any HTTPS host (open registration)' : html`these hosts: ${hosts}`}; change that through the admin API (<code>/school/mcp-connections</code>).</p>`,
  );
}
