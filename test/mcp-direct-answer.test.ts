import { expect } from 'chai';
import { findUserByEmail } from '../src/accounts/users.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { authenticateMcpCaller } from '../src/mcp/auth.js';
import { answerDirectly } from '../src/mcp/direct-answer.js';
import { answersWithJson } from '../src/mcp/endpoint.js';
import { McpCatalog } from '../src/mcp/server.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createServices } from '../src/services.js';
import { createLogger } from '../src/shared/logger.js';
import { createSite, getSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { MCP_ERAS, MODERN_META, modernHeaders, type McpEra } from './support/mcp-clients.js';
import { memberToken } from './support/member-api.js';
import { discover, exchangeCode, issueCode, makeClient } from './support/oauth-fixtures.js';
import { testConfig } from './support/server.js';
import { variantProfile } from '../src/variant.js';

/**
 * The direct answers of /mcp (src/mcp/direct-answer.ts) against the SDK's own: two servers over one database serve
 * the same school (behind a trusted proxy, so both find it from X-Forwarded-Host), one with direct answers and one
 * that sends every request through the SDK, and each request goes to both. Status, Content-Type and the JSON-RPC
 * response must be the same, for every tool and resource of the variant, both protocol eras, and the refused cases
 * (tool errors, unknown tools and resources, scopes, a foreign Origin or host). For the requests the direct path is
 * meant to take, the test also calls it in process and checks it answers (so this cannot pass by never taking it).
 */

interface Sent {
  era: McpEra;
  method: 'tools/call' | 'resources/read';
  params: Record<string, unknown>;
  token?: string;
  headers?: Record<string, string>;
  /** The direct path must answer this one (true), hand it to the SDK (false), or never see it (refused before). */
  direct: boolean | 'refused before';
}

for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`MCP direct answers match the SDK's, variant ${variant}`, (scratch) => {
    let direct: RunningServer;
    let viaSdk: RunningServer;
    let site: Site;
    let host: string;
    const tokens = {} as Record<'member' | 'identity' | 'operator', string>;

    before(async function () {
      this.timeout(120_000);
      const { db } = scratch();
      const logger = createLogger('silent');
      direct = await startServer(testConfig({ variant, trustProxy: true, database: scratch().config }), { db, logger });
      viaSdk = await startServer(testConfig({ variant, trustProxy: true, database: scratch().config, mcpDirectAnswers: false }), { db, logger });
      const origin = direct.listeningOn.replace('127.0.0.1', 'localhost');
      const created = await createSite(db, { origin, name: 'Direct School', subdomain: `direct-${variant.toLowerCase()}` });
      host = new URL(origin).host;
      await importSiteDocument(db, buildDemoDocument(origin, new Date()));
      // The import renames the school and sets its time zone: the site as it is now.
      site = await getSite(db, created.id);
      const mia = await findUserByEmail(db, DEMO_LOGINS.member.email);
      const olivia = await findUserByEmail(db, DEMO_LOGINS.operator.email);
      if (!mia || !olivia) throw new Error('the demo people were not imported');
      tokens.member = await memberToken(db, site, mia);
      tokens.identity = await memberToken(db, site, mia, 'openid profile');
      const operatorApp = await makeClient(db, site, { audience: 'operator', confidential: false, scopes: ['openid', 'courses:read'] });
      const grant = await issueCode(db, site, operatorApp, olivia, 'openid courses:read');
      tokens.operator = ((await (await exchangeCode(await discover(origin), operatorApp, grant)).json()) as { access_token: string }).access_token;
    });

    after(async () => {
      await direct?.stop(1000);
      await viaSdk?.stop(1000);
    });

    function headersOf(sent: Sent): Record<string, string> {
      const name = String(sent.params.name ?? sent.params.uri);
      const base =
        sent.era === '2026-07-28'
          ? modernHeaders(sent.method, name, sent.token)
          : { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(sent.token === undefined ? {} : { authorization: `Bearer ${sent.token}` }) };
      return { ...base, 'x-forwarded-host': host, 'x-forwarded-proto': 'http', ...sent.headers };
    }

    function bodyOf(sent: Sent, id: number): Record<string, unknown> {
      return { jsonrpc: '2.0', id, method: sent.method, params: sent.era === '2026-07-28' ? { ...sent.params, _meta: MODERN_META } : sent.params };
    }

    async function ask(server: RunningServer, sent: Sent, id: number): Promise<{ status: number; contentType: string | null; body: unknown }> {
      const response = await fetch(`${server.listeningOn}/mcp`, { method: 'POST', headers: headersOf(sent), body: JSON.stringify(bodyOf(sent, id)) });
      const text = await response.text();
      const contentType = response.headers.get('content-type');
      return { status: response.status, contentType, body: contentType?.startsWith('application/json') ? (JSON.parse(text) as unknown) : text };
    }

    /** What the direct path answers in process for the request (null: it hands the request to the SDK). */
    async function answeredInProcess(sent: Sent, id: number): Promise<string | null> {
      const services = createServices(testConfig({ variant }), scratch().db, createLogger('silent'));
      const authorization = sent.token === undefined ? undefined : `Bearer ${sent.token}`;
      const caller = await authenticateMcpCaller(services, site, { authorization, method: 'POST', url: `${site.origin}/mcp`, proof: undefined, proofCount: 0, nonceRequired: false, sendNonce: () => undefined });
      const headers = Object.fromEntries(Object.entries(headersOf(sent)).map(([name, value]) => [name.toLowerCase(), value]));
      return answerDirectly(bodyOf(sent, id), headers, answersWithJson(headers.accept), new McpCatalog(variantProfile(variant)), { services, site, log: services.logger, caller, now: new Date() });
    }

    function requests(era: McpEra): Array<[string, Sent]> {
      const tool = (name: string, args: Record<string, unknown>, token: string | undefined, isDirect: Sent['direct'], headers?: Record<string, string>): Sent => ({
        era,
        method: 'tools/call',
        params: { name, arguments: args },
        direct: isDirect,
        ...(token === undefined ? {} : { token }),
        ...(headers === undefined ? {} : { headers }),
      });
      const read = (path: string, token: string | undefined, isDirect: boolean, scheme = 'school'): Sent => ({ era, method: 'resources/read', params: { uri: `${scheme}://${host}${path}` }, direct: isDirect, ...(token === undefined ? {} : { token }) });
      const variantA: Array<[string, Sent]> =
        variant === 'A'
          ? [
              ['list_my_meetings', tool('list_my_meetings', {}, tokens.member, true)],
              ['list_my_meetings past', tool('list_my_meetings', { when: 'past', first: 2 }, tokens.member, true)],
              ['list_my_payments', tool('list_my_payments', { first: 3 }, tokens.member, true)],
              ['list_my_notifications', tool('list_my_notifications', { unreadOnly: true }, tokens.member, true)],
              ['mark_notification_read of an unknown id (tool error)', tool('mark_notification_read', { id: 'Tm90aWZpY2F0aW9uOjk5OTk5OQ' }, tokens.member, true)],
              ['list_my_schedule resource', read('/me/schedule', tokens.member, true)],
            ]
          : [['list_my_meetings (not in variant B)', tool('list_my_meetings', {}, tokens.member, false)]];
      return [
        ['get_school_profile, anonymous', tool('get_school_profile', {}, undefined, true)],
        ['search_courses', tool('search_courses', { query: 'design', first: 2 }, undefined, true)],
        ['search_courses with a bad page size (tool error)', tool('search_courses', { first: 500 }, undefined, true)],
        ['get_course_syllabus', tool('get_course_syllabus', { course: 'foundations-of-typography' }, undefined, true)],
        ['get_course_syllabus of no course (tool error)', tool('get_course_syllabus', { course: 'no-such-course' }, undefined, true)],
        ['list_upcoming_events', tool('list_upcoming_events', {}, undefined, true)],
        ['list_consulting_services', tool('list_consulting_services', {}, tokens.member, true)],
        ['list_my_courses', tool('list_my_courses', { first: 20 }, tokens.member, true)],
        ['get_my_course_syllabus', tool('get_my_course_syllabus', { course: 'foundations-of-typography' }, tokens.member, true)],
        ['get_my_course_syllabus, not enrolled (tool error)', tool('get_my_course_syllabus', { course: 'no-such-course' }, tokens.member, true)],
        ['list_my_courses with arguments of the wrong type (tool error)', tool('list_my_courses', { first: 'many' }, tokens.member, true)],
        ['an unknown tool', tool('drop_tables', {}, tokens.member, false)],
        ['a member tool with an operator token', tool('list_my_courses', {}, tokens.operator, false)],
        ['a member tool with a token lacking its scope (step-up)', tool('list_my_courses', {}, tokens.identity, false)],
        ['a member tool without a token (sign-in)', tool('list_my_courses', {}, undefined, false)],
        ['a foreign Origin', tool('get_school_profile', {}, undefined, 'refused before', { origin: 'http://evil.example' })],
        ['a host of no school', tool('get_school_profile', {}, undefined, 'refused before', { 'x-forwarded-host': 'nowhere.example' })],
        ['a client that prefers a stream', tool('get_school_profile', {}, undefined, era === '2026-07-28', { accept: 'text/event-stream, application/json;q=0.5' })],
        ['the school profile resource', read('/profile', undefined, true)],
        ['the catalogue resource', read('/courses', undefined, true)],
        ['a course syllabus resource', read('/courses/foundations-of-typography/syllabus', undefined, true)],
        ['my courses resource', read('/me/courses', tokens.member, true)],
        ['my course syllabus resource', read('/me/courses/foundations-of-typography/syllabus', tokens.member, true)],
        ['a view', read('/views/my-courses', tokens.member, true, 'ui')],
        ['a syllabus resource of no course', read('/courses/no-such-course/syllabus', undefined, false)],
        ['an unknown resource', read('/nothing', undefined, false)],
        ['a member resource with an operator token', read('/me/courses', tokens.operator, false)],
        ...variantA,
      ];
    }

    for (const era of MCP_ERAS) {
      it(`answers every tool call and resource read as the SDK does (${era})`, async function () {
        this.timeout(120_000);
        let id = 100;
        for (const [label, sent] of requests(era)) {
          id += 1;
          const [fromDirect, fromSdk] = await Promise.all([ask(direct, sent, id), ask(viaSdk, sent, id)]);
          expect(fromDirect, label).to.deep.equal(fromSdk);
          if (sent.direct === 'refused before') continue;
          const inProcess = await answeredInProcess(sent, id);
          if (sent.direct) {
            expect(inProcess, `${label}: the direct path answers it`).to.be.a('string');
            expect(JSON.parse(inProcess ?? 'null'), label).to.deep.equal(fromSdk.body);
          } else {
            expect(inProcess, `${label}: left to the SDK`).to.equal(null);
          }
        }
      });
    }
  });
}

