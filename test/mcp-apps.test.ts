import type { CallToolResult, JSONRPCMessage, Tool, Transport } from '@modelcontextprotocol/client';
import type { McpUiStyles } from '@modelcontextprotocol/ext-apps';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { expect } from 'chai';
import type { Browser, Frame, FrameLocator, Page } from 'playwright-core';
import { findUserByEmail, type User } from '../src/accounts/users.js';
import type { Database } from '../src/db/connection.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import type { ImportDocument } from '../src/import/document.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { launchChromium } from './support/browser.js';
import { describeEachDatabase } from './support/databases.js';
import { MCP_ERAS, postModern, withMcpClient, type AnyMcpClient, type McpEra } from './support/mcp-clients.js';
import { memberToken } from './support/member-api.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The interactive views (MCP Apps) of list_my_courses and get_my_course_syllabus, on both stores and both protocol
 * revisions: how the tools link them, what `resources/read` serves (the HTML, its media type and CSP metadata, who may
 * read it), and the views themselves rendered by headless Chromium inside a sandboxed iframe, driven by the
 * extension's own host implementation (`AppBridge`) with the member's real tool results, a course opened through a
 * tool call the view makes through the host, and not one network request.
 */

const MIA = DEMO_LOGINS.member.email;
const VIEWS = { list_my_courses: '/views/my-courses', get_my_course_syllabus: '/views/my-course-syllabus' } as const;
type ViewTool = keyof typeof VIEWS;
/** A course title that is markup, enrolled by the member: the views must show it as text. */
const HOSTILE_TITLE = `<img src=x onerror="parent.postMessage('pwned','*')"> Kerning & "Tracking" </script><b>bold</b>`;

interface Progress {
  totalLecturesCount: number;
  completedLecturesCount: number;
  completionRate: number;
}

interface ListedCourse {
  id: string;
  slug: string;
  title: string;
  progress: Progress;
}

interface Syllabus {
  course: { title: string };
  progress: Progress;
  nextUp: { lectureTitle: string; sectionTitle: string } | null;
  sections: Array<{ title: string; lectures: Array<{ title: string }> }>;
}

interface ToolDefinition {
  name: string;
  _meta?: Record<string, unknown>;
}

interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  _meta?: Record<string, unknown>;
}

/** The calls this file makes, as both clients (SDK v1 and v2) offer them. */
interface AppsClient {
  listTools(): Promise<{ tools: ToolDefinition[] }>;
  listResources(params?: { cursor?: string }): Promise<{ resources: Array<{ uri: string; name: string; mimeType?: string; _meta?: Record<string, unknown> }>; nextCursor?: string }>;
  readResource(params: { uri: string }): Promise<{ contents: ResourceContents[]; _meta?: Record<string, unknown> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
}

const appsClient = (client: AnyMcpClient): AppsClient => client as unknown as AppsClient;

function progressText(progress: Progress): string {
  const lectures = progress.totalLecturesCount === 1 ? 'lecture' : 'lectures';
  return `${progress.completedLecturesCount} of ${progress.totalLecturesCount} ${lectures} completed (${Math.round(progress.completionRate * 100)}%)`;
}

function schoolDocument(origin: string, now: Date): ImportDocument {
  const demo = buildDemoDocument(origin, now);
  return {
    ...demo,
    courses: [
      ...(demo.courses ?? []),
      {
        externalId: 'crs-hostile',
        slug: 'hostile-title',
        title: HOSTILE_TITLE,
        status: 'published',
        sections: [{ externalId: 'hostile-s1', title: '<i>Section</i> one', lectures: [{ externalId: 'hostile-l1', title: '<svg onload=alert(1)>', kind: 'video', durationSeconds: 125 }] }],
      },
    ],
    enrollments: [...(demo.enrollments ?? []), { externalId: 'enr-mia-hostile', course: 'crs-hostile', user: MIA, enrolledAt: new Date(now.getTime() - 60_000).toISOString(), hasLifetimeAccess: true }],
  };
}

// --- The host: a page with the view in a sandboxed iframe, the extension's AppBridge in this process -----------------

/**
 * The host page: one iframe with `sandbox="allow-scripts"` (an opaque origin: the view reaches nothing of the page),
 * messages from the view handed to this process (`fromView`), messages to it posted into the iframe (`toView`).
 */
const HOST_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test host</title></head>
<body>
<iframe id="view" title="Interactive view" sandbox="allow-scripts" style="width: 720px; height: 600px; border: 0"></iframe>
<script>
  const frame = document.getElementById('view');
  window.addEventListener('message', (event) => { if (event.source === frame.contentWindow) window.fromView(event.data); });
  window.toView = (message) => frame.contentWindow.postMessage(message, '*');
  window.loadView = (html) => { frame.srcdoc = html; };
</script>
</body></html>`;

/** AppBridge's transport: postMessage into the page's iframe, and back through a function the page calls. */
class FrameTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    await this.page.evaluate((sent) => (globalThis as unknown as { toView(message: unknown): void }).toView(sent), message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  receive(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }
}

interface HostedView {
  frame: FrameLocator;
  /** The view's document, for reading what the page shows beyond text. */
  document: Frame;
  /** The first size the view reported. */
  size: Promise<{ width?: number; height?: number }>;
}

/**
 * Shows `html` as a host does: the page, the bridge connected, the view loaded; after the view's initialized
 * notification the tool's input and result. Tool calls the view makes go through the bridge to `client` (the
 * member's MCP connection), as a host forwards them to the server.
 */
async function hostView(page: Page, html: string, client: AppsClient, tool: ToolDefinition, input: Record<string, unknown>, result: CallToolResult): Promise<HostedView> {
  const transport = new FrameTransport(page);
  await page.exposeFunction('fromView', (message: JSONRPCMessage) => transport.receive(message));
  await page.setContent(HOST_PAGE);
  const bridge = new AppBridge(
    null,
    { name: 'schoolgate-test-host', version: '1.0.0' },
    { serverTools: {} },
    {
      hostContext: {
        theme: 'dark',
        locale: 'en-US',
        timeZone: 'UTC',
        displayMode: 'inline',
        availableDisplayModes: ['inline'],
        containerDimensions: { maxHeight: 4000, width: 720 },
        styles: { variables: { '--color-text-primary': 'rgb(1, 2, 3)' } as Partial<McpUiStyles> as McpUiStyles },
        toolInfo: { tool: tool as Tool },
      },
    },
  );
  bridge.oncalltool = async (params) => client.callTool({ name: params.name, arguments: params.arguments ?? {} });
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  const size = new Promise<{ width?: number; height?: number }>((resolve) => {
    bridge.onsizechange = (params) => resolve(params);
  });
  await bridge.connect(transport);
  await page.evaluate((view) => (globalThis as unknown as { loadView(html: string): void }).loadView(view), html);
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result);
  const document = page.frames().find((frame) => frame !== page.mainFrame());
  if (document === undefined) throw new Error('the view has no frame');
  return { frame: page.frameLocator('#view'), document, size };
}

// --- The suite ----------------------------------------------------------------------------------------------------

describeEachDatabase('MCP Apps: the interactive views of list_my_courses and get_my_course_syllabus', (scratch) => {
  let server: TestServer;
  let db: Database;
  let origin: string;
  let host: string;
  let browser: Browser;
  const tokens = {} as Record<'read' | 'identity' | 'siteB', string>;

  async function userOf(email: string): Promise<User> {
    const user = await findUserByEmail(db, email);
    if (!user) throw new Error(`no user ${email}`);
    return user;
  }

  const viewUri = (tool: ViewTool): string => `ui://${host}${VIEWS[tool]}`;

  before(async function () {
    this.timeout(180_000);
    db = scratch().db;
    server = await startTestServer(scratch());
    origin = server.siteA.origin;
    host = new URL(origin).host;
    await importSiteDocument(db, schoolDocument(origin, new Date()));
    await importSiteDocument(db, buildDemoDocument(server.siteB.origin, new Date()));
    const mia = await userOf(MIA);
    tokens.read = await memberToken(db, server.siteA, mia, 'openid account:read');
    tokens.identity = await memberToken(db, server.siteA, mia, 'openid profile email');
    tokens.siteB = await memberToken(db, server.siteB, mia, 'openid account:read');
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const era of MCP_ERAS) {
    describe(`over ${era}`, () => {
      const withClient = <T>(token: string | undefined, use: (client: AppsClient) => Promise<T>): Promise<T> => withMcpClient(origin, era, token, (client) => use(appsClient(client)));

      it("links exactly list_my_courses and get_my_course_syllabus to their views, at this school's host", async () => {
        const { tools } = await withClient(tokens.read, (client) => client.listTools());
        const linked = tools.filter((tool) => tool._meta?.ui !== undefined || tool._meta?.[RESOURCE_URI_META_KEY] !== undefined);
        expect(linked.map((tool) => tool.name).sort()).to.deep.equal(Object.keys(VIEWS).sort());
        for (const tool of linked) {
          const uri = viewUri(tool.name as ViewTool);
          expect(tool._meta, tool.name).to.deep.equal({ ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri });
        }
        // Another school on the same server links its own views.
        const other = await withMcpClient(server.siteB.origin, era, tokens.siteB, async (client) => (await appsClient(client).listTools()).tools.find((tool) => tool.name === 'list_my_courses'));
        expect(other?._meta?.ui).to.deep.equal({ resourceUri: `ui://${new URL(server.siteB.origin).host}/views/my-courses` });
        // Anonymous callers see neither the member tools nor any view.
        const anonymous = await withClient(undefined, async (client) => ({ tools: (await client.listTools()).tools, resources: (await client.listResources()).resources }));
        expect(anonymous.tools.filter((tool) => tool._meta !== undefined)).to.deep.equal([]);
        expect(anonymous.resources.filter((resource) => resource.uri.startsWith('ui://'))).to.deep.equal([]);
      });

      it('gives clients that do not show views the same structured content', async () => {
        await withClient(tokens.read, async (client) => {
          const result = await client.callTool({ name: 'list_my_courses', arguments: {} });
          expect(result.isError).to.not.equal(true);
          const first = result.content[0];
          expect(first?.type).to.equal('text');
          expect(JSON.parse(first?.type === 'text' ? first.text : 'null')).to.deep.equal(result.structuredContent);
        });
      });

      it('lists both views to a member and serves each as self-contained text/html;profile=mcp-app whose CSP metadata allows no domain', async () => {
        await withClient(tokens.read, async (client) => {
          const listed: Array<{ uri: string; name: string; mimeType?: string; _meta?: Record<string, unknown> }> = [];
          let cursor: string | undefined;
          do {
            const page = await client.listResources(cursor === undefined ? {} : { cursor });
            listed.push(...page.resources);
            cursor = page.nextCursor;
          } while (cursor !== undefined);
          const views = listed.filter((resource) => resource.uri.startsWith('ui://'));
          expect(views.map((resource) => resource.uri).sort()).to.deep.equal(Object.keys(VIEWS).map((tool) => viewUri(tool as ViewTool)).sort());
          const uiMeta = { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true };
          for (const view of views) {
            expect(view.mimeType).to.equal(RESOURCE_MIME_TYPE);
            expect(view._meta).to.deep.equal({ ui: uiMeta });
          }
          for (const tool of Object.keys(VIEWS) as ViewTool[]) {
            const read = await client.readResource({ uri: viewUri(tool) });
            expect(read.contents).to.have.length(1);
            const [content] = read.contents;
            expect(content?.uri).to.equal(viewUri(tool));
            expect(content?.mimeType).to.equal('text/html;profile=mcp-app');
            expect(content?._meta, 'hosts read the CSP from the content item').to.deep.equal({ ui: uiMeta });
            const html = content?.text ?? '';
            expect(html).to.match(/^<!doctype html>/);
            expect(html).to.match(/<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-[A-Za-z0-9+/=]+&#39;; style-src &#39;sha256-[A-Za-z0-9+/=]+&#39;;/);
            expect(html, 'no absolute URL').not.to.match(/https?:/i);
            expect(html, 'no src or href attribute').not.to.match(/\s(?:src|href|srcset|action)\s*=/i);
            expect(html, 'no url() in CSS').not.to.match(/url\s*\(/i);
            expect(html, 'no @import').not.to.include('@import');
            expect(html, 'no protocol-relative URL').not.to.match(/["'(=]\s*\/\//);
            expect(html.match(/<script\b/g), 'one inline script').to.have.length(1);
            expect(html, 'no markup parsed from data').not.to.match(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
            expect(html.length, 'small enough to read on every render').to.be.below(40_000);
          }
        });
      });

      it('answers a read of a view without a token with the 401 OAuth challenge and with a token lacking account:read with the 403 step-up', async () => {
        for (const tool of Object.keys(VIEWS) as ViewTool[]) {
          const uri = viewUri(tool);
          for (const [token, status] of [
            [undefined, 401],
            [tokens.identity, 403],
          ] as const) {
            const response = await readRaw(era, uri, token);
            expect(response.status, `${uri} with ${token === undefined ? 'no token' : 'no account:read'}`).to.equal(status);
            const challenge = response.headers.get('www-authenticate') ?? '';
            expect(challenge).to.match(/^Bearer /);
            expect(challenge).to.include(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`).and.to.include('scope="account:read"');
            const body = (await response.json()) as { id?: unknown; error?: unknown };
            if (status === 401) {
              expect(body.id, 'the JSON-RPC error carries the request id').to.equal(7);
            } else {
              expect(challenge).to.include('error="insufficient_scope"');
              expect(body.error).to.equal('insufficient_scope');
            }
          }
        }
        // Another school's view is not this school's resource.
        const foreign = await withClient(tokens.read, (client) => client.readResource({ uri: `ui://${new URL(server.siteB.origin).host}/views/my-courses` }).then(() => null, (error: unknown) => error));
        expect(foreign).to.have.property('code', -32602);
      });

      it("renders the member's courses and a course's lectures in Chromium, from the host's data only, loading nothing", async function () {
        this.timeout(120_000);
        const context = await browser.newContext();
        const requests: string[] = [];
        const problems: string[] = [];
        context.on('request', (request) => requests.push(request.url()));
        try {
          await withClient(tokens.read, async (client) => {
            const { tools } = await client.listTools();
            const toolNamed = (name: ViewTool): ToolDefinition => tools.find((tool) => tool.name === name) as ToolDefinition;
            const htmlOf = async (name: ViewTool): Promise<string> => {
              const resourceUri = (toolNamed(name)._meta?.ui as { resourceUri: string }).resourceUri;
              return (await client.readResource({ uri: resourceUri })).contents[0]?.text ?? '';
            };

            // list_my_courses, through its view.
            const listResult = await client.callTool({ name: 'list_my_courses', arguments: {} });
            const courses = (listResult.structuredContent as { courses: ListedCourse[] }).courses;
            expect(courses.length).to.be.above(1);
            const coursesPage = await watchedPage(context, problems);
            const list = await hostView(coursesPage, await htmlOf('list_my_courses'), client, toolNamed('list_my_courses'), {}, listResult);
            await list.frame.locator('table').waitFor();
            const listText = await list.frame.locator('main').innerText();
            for (const course of courses) {
              expect(listText).to.include(course.title);
              expect(listText).to.include(progressText(course.progress));
            }
            const bars = list.frame.locator('progress');
            expect(await bars.count()).to.equal(courses.length);
            for (const [index, course] of courses.entries()) {
              expect(await bars.nth(index).getAttribute('value')).to.equal(String(course.progress.completedLecturesCount));
              expect(await bars.nth(index).getAttribute('aria-label')).to.equal(`Progress in ${course.title}`);
            }
            expect(await list.frame.locator('th[scope="col"]').allInnerTexts()).to.deep.equal(['Course', 'Progress', 'Access']);
            expect(await list.frame.locator('img, b, svg').count(), 'markup in data stays text').to.equal(0);
            expect(await list.document.evaluate('document.documentElement.getAttribute("data-theme")')).to.equal('dark');
            expect(await list.document.evaluate('document.documentElement.style.getPropertyValue("--color-text-primary")')).to.equal('rgb(1, 2, 3)');
            expect((await list.size).height).to.be.above(0);

            // Opening a course: the view calls get_my_course_syllabus through the host.
            const opened = courses.find((course) => course.progress.totalLecturesCount > 0 && course.title !== HOSTILE_TITLE) as ListedCourse;
            const expected = (await client.callTool({ name: 'get_my_course_syllabus', arguments: { course: opened.id } })).structuredContent as unknown as Syllabus;
            const button = list.frame.getByRole('button', { name: opened.title, exact: true });
            await button.click();
            await list.frame.locator('#detail .syllabus-title').waitFor();
            expect(await button.getAttribute('aria-expanded')).to.equal('true');
            expectSyllabusShown(await list.frame.locator('#detail').innerText(), expected);

            // get_my_course_syllabus, through its own view, for the course whose title is markup.
            const hostile = courses.find((course) => course.title === HOSTILE_TITLE) as ListedCourse;
            const input = { course: hostile.slug };
            const syllabusResult = await client.callTool({ name: 'get_my_course_syllabus', arguments: input });
            const syllabusPage = await watchedPage(context, problems);
            const syllabus = await hostView(syllabusPage, await htmlOf('get_my_course_syllabus'), client, toolNamed('get_my_course_syllabus'), input, syllabusResult);
            await syllabus.frame.locator('.syllabus-title').waitFor();
            const shown = syllabusResult.structuredContent as unknown as Syllabus;
            expectSyllabusShown(await syllabus.frame.locator('main').innerText(), shown);
            expect(await syllabus.frame.locator('h1').innerText()).to.equal(HOSTILE_TITLE);
            expect(await syllabus.frame.locator('ol.lectures li').count()).to.equal(shown.sections.flatMap((section) => section.lectures).length);
            expect(await syllabus.frame.locator('img, svg, i, b').count(), 'markup in data stays text').to.equal(0);
            expect(await syllabus.frame.locator('progress').getAttribute('value')).to.equal(String(shown.progress.completedLecturesCount));
          });
          expect(problems, 'no script error, no CSP violation').to.deep.equal([]);
          expect(requests, 'the views loaded nothing').to.deep.equal([]);
        } finally {
          await context.close();
        }
      });
    });
  }

  /** A raw `resources/read` POST of the era (2026-07-28 with its envelope and headers), id 7. */
  async function readRaw(era: McpEra, uri: string, token: string | undefined): Promise<Response> {
    if (era === '2026-07-28') return postModern(origin, 7, 'resources/read', { uri }, { name: uri, ...(token === undefined ? {} : { token }) });
    return fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': era, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri } }),
    });
  }
});

/** A page of the context that records script errors and console errors (a CSP violation is one). */
async function watchedPage(context: Awaited<ReturnType<Browser['newContext']>>, problems: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  return page;
}

function expectSyllabusShown(text: string, syllabus: Syllabus): void {
  expect(text).to.include(syllabus.course.title);
  expect(text).to.include(progressText(syllabus.progress));
  if (syllabus.nextUp !== null) expect(text).to.include(`Next up: ${syllabus.nextUp.lectureTitle} (${syllabus.nextUp.sectionTitle})`);
  for (const section of syllabus.sections) {
    expect(text).to.include(section.title);
    for (const lecture of section.lectures) expect(text).to.include(lecture.title);
  }
}
