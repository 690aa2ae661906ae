import { html, joinHtml, safeUrl, type Html } from '../../../http/html.js';
import { USAGE_APIS, type ClientUse, type UsageApi } from '../../../usage/export-format.js';
import type { ElementUsage, UsageWindow } from '../../../usage/report.js';
import { ADMIN_PATHS } from '../paths.js';
import { adminPage, notices, type AdminChrome } from './layout.js';

const API_NAMES: Record<UsageApi, string> = { graphql: 'Member API', admin: 'Admin API', mcp: 'MCP' };

/** The filters as the form gave them, shown again in the form. */
export interface UsageFilterValues {
  days: string;
  api: UsageApi | '';
  element: string;
}

export interface UsagePageInput {
  chrome: AdminChrome;
  values: UsageFilterValues;
  /** The days the instance keeps (SCHOOLGATE_USAGE_RETENTION_DAYS): the form's maximum. */
  retentionDays: number;
  /** Null when the filters were refused (`error` says why). */
  window: UsageWindow | null;
  elements: readonly ElementUsage[];
  nextPage: string | null;
  /** True on a page after the first. */
  continued: boolean;
  error?: string | null;
}

const count = (value: number) => value.toLocaleString('en-US');

function clientLine(client: ClientUse): Html {
  const who = client.clientId === null ? html`<strong>Anonymous</strong> (public MCP tools)` : html`${client.clientName ?? ''} <code>${client.clientId}</code>`;
  return html`<li>${who}: ${count(client.uses)} · last ${client.lastUsedAt.slice(0, 16).replace('T', ' ')} UTC</li>`;
}

function usageTable(elements: readonly ElementUsage[]): Html {
  const rows = elements.map(
    (element) => html`<tr><td><code>${element.element}</code></td><td>${API_NAMES[element.api]}</td><td>${count(element.uses)}</td><td><ul class="clients">${element.clients.map(clientLine)}</ul></td></tr>`,
  );
  return html`<table>
<thead><tr><th>Element</th><th>API</th><th>Uses</th><th>Clients</th></tr></thead>
<tbody>
${joinHtml(rows, '\n')}
</tbody>
</table>`;
}

function apiOptions(selected: UsageApi | ''): Html {
  const options = [html`<option value=""${selected === '' ? ' selected' : ''}>All APIs</option>`];
  for (const api of USAGE_APIS) options.push(html`<option value="${api}"${selected === api ? ' selected' : ''}>${API_NAMES[api]}</option>`);
  return joinHtml(options, '\n');
}

function results(input: UsagePageInput): Html {
  if (input.window === null) return html``;
  const span = html`${input.window.from} to ${input.window.to} (UTC days, today included)`;
  if (input.elements.length === 0) return html`<p>${input.continued ? 'No more elements' : 'Nothing matching was used'} from ${span}.</p>`;
  return html`<p>Used from ${span}, most used first${input.continued ? ' (continued)' : ''}.</p>
${usageTable(input.elements)}
${input.nextPage === null ? '' : html`<p><a href="${safeUrl(input.nextPage)}" rel="next">Next page</a></p>`}`;
}

/**
 * API usage: which clients used which member API field, admin API operation and MCP tool lately, and how often
 * (docs/usage.md, "Reading the usage"), filtered by API and by the beginning of the element's name.
 */
export function usagePage(input: UsagePageInput): string {
  const { values } = input;
  return adminPage(
    input.chrome,
    'admin-usage',
    'API usage',
    html`<h1>API usage</h1>
<p>Which applications used which part of this school's APIs: member API fields and arguments (<code>Course.title</code>), admin API operations (<code>listCourses</code>) and MCP tools (<code>list_courses</code>). Before removing or changing one, see who still relies on it.</p>
${notices({ error: input.error ?? null })}
<form method="get" action="${ADMIN_PATHS.usage}">
<label for="api">API</label>
<select id="api" name="api">
${apiOptions(values.api)}
</select>
<label for="element">Element, or the beginning of its name</label>
<input type="text" id="element" name="element" maxlength="191" autocomplete="off" placeholder="Course." value="${values.element}">
<label for="days">Days, ending today</label>
<input type="text" id="days" name="days" inputmode="numeric" maxlength="4" value="${values.days}">
<p class="fine">From 1 to ${input.retentionDays}: older counts are not kept.</p>
<div class="actions"><button type="submit">Show usage</button></div>
</form>
${results(input)}
<p class="fine">Counts are written every half minute or so, so the latest calls may not show yet. The same figures: <code>npx schoolgate usage</code> and the admin API's <code>GET /usage</code>.</p>`,
  );
}
